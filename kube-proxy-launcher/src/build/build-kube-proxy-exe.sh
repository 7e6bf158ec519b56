#!/usr/bin/env bash
# Builds kube-proxy.exe (a PE32+ x86-64 console program) from src/main/c with the mingw-w64 cross compiler.
#
# Usage: build-kube-proxy-exe.sh OUTPUT.exe SOURCE_DIR [VERSION]
#   VERSION (the project's, e.g. 0.1.0-SNAPSHOT) goes into the exe's version resource (version.rc, with windres).
#        build-kube-proxy-exe.sh --test-tools OUTPUT_DIR SOURCE_DIR TEST_SOURCE_DIR
#   The second form builds the Windows programs of the tests on a Windows API (src/test/c): OUTPUT_DIR/harness.exe
#   (with the launcher's cmdline.c) and OUTPUT_DIR/java.exe (the stand-in runtime), with the same compiler.
#
# The compiler, first found wins:
#   1. $MINGW_GCC (Maven: -Dmingw.gcc=/path/to/x86_64-w64-mingw32-gcc)
#   2. x86_64-w64-mingw32-gcc on the PATH (e.g. Debian's gcc-mingw-w64-x86-64 installed)
#   3. Debian's mingw-w64 packages, fetched with `apt-get download` (no root, no global install) and unpacked with
#      `dpkg -x` into $WINPROXY_MINGW_CACHE (default ~/.cache/winproxy/mingw), once; later builds reuse them.
#      When the package lists are empty and this runs as root, `apt-get update` is run first.
# Without any of them the build fails with one message saying what to do: the exe is part of the distribution.
# The exe is rebuilt only when a source or this script is newer than it.
set -euo pipefail

usage="usage: build-kube-proxy-exe.sh OUTPUT.exe SOURCE_DIR [VERSION] | --test-tools OUTPUT_DIR SOURCE_DIR TEST_SOURCE_DIR"
tools=
if [[ ${1:-} == --test-tools ]]; then
    tools=${2:?$usage}
    sources=${3:?$usage}
    test_sources=${4:?$usage}
    output=$tools/harness.exe
else
    output=${1:?$usage}
    sources=${2:?$usage}
    version=${3:-0.0.0}
fi
script=${BASH_SOURCE[0]}

# The win32-threads flavour: the launcher needs no C++ or pthreads, and it links no extra runtime DLL.
packages=(binutils-mingw-w64-x86-64 gcc-mingw-w64-base gcc-mingw-w64-x86-64-win32
          gcc-mingw-w64-x86-64-win32-runtime mingw-w64-common mingw-w64-x86-64-dev)
cache=${WINPROXY_MINGW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winproxy/mingw}
toolchain=$cache/x86_64-w64-mingw32-win32

die() {
    echo "kube-proxy-launcher: $*" >&2
    exit 1
}

up_to_date() {
    [[ -f $output ]] || return 1
    [[ -n $tools || $(cat "$output.version" 2>/dev/null) == "$version" ]] || return 1
    local newer
    newer=$(find "$sources" ${test_sources:+"$test_sources"} "$script" -newer "$output" -type f | head -n 1)
    [[ -z $newer ]]
}

download_toolchain() {
    command -v apt-get >/dev/null && command -v dpkg >/dev/null \
        || die "no mingw-w64 compiler: x86_64-w64-mingw32-gcc is not on the PATH and apt-get/dpkg are not" \
               "available to fetch Debian's ${packages[*]}; install mingw-w64 or pass -Dmingw.gcc=PATH"
    mkdir -p "$cache"
    local work
    work=$(mktemp -d "$cache/.download.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$work'" EXIT
    local options=(-q)
    if [[ $(id -u) == 0 ]]; then
        # As root apt drops privileges to _apt, which cannot write into a private directory; nothing is installed.
        options+=(-o APT::Sandbox::User=root)
    fi
    if ! (cd "$work" && apt-get "${options[@]}" download "${packages[@]}" >/dev/null 2>"$work/apt.log"); then
        if [[ $(id -u) == 0 ]]; then
            echo "kube-proxy-launcher: apt-get download failed; running apt-get update once" >&2
            apt-get -q update >/dev/null 2>>"$work/apt.log" || true
            rm -f "$work"/*.deb
        fi
        (cd "$work" && apt-get "${options[@]}" download "${packages[@]}" >/dev/null 2>>"$work/apt.log") \
            || die "cannot download Debian's mingw-w64 packages (${packages[*]}): $(tail -n 1 "$work/apt.log");" \
                   "run 'apt-get update' as root, install gcc-mingw-w64-x86-64, or pass -Dmingw.gcc=PATH"
    fi
    mkdir "$work/root"
    local deb
    for deb in "$work"/*.deb; do
        dpkg -x "$deb" "$work/root"
    done
    (cd "$work" && ls ./*.deb | sed 's|^\./||') > "$work/root/PACKAGES"
    # Publish atomically: a concurrent build either sees no toolchain or a complete one.
    if ! mv -T "$work/root" "$toolchain" 2>/dev/null; then
        [[ -x $toolchain/usr/bin/x86_64-w64-mingw32-gcc-win32 ]] || die "cannot create $toolchain"
    fi
    rm -rf "$work"
    trap - EXIT
}

find_compiler() {
    if [[ -n ${MINGW_GCC:-} ]]; then
        command -v "$MINGW_GCC" >/dev/null || die "-Dmingw.gcc=$MINGW_GCC: no such compiler"
        echo "$MINGW_GCC"
        return
    fi
    if command -v x86_64-w64-mingw32-gcc >/dev/null; then
        echo x86_64-w64-mingw32-gcc
        return
    fi
    if [[ ! -x $toolchain/usr/bin/x86_64-w64-mingw32-gcc-win32 ]]; then
        echo "kube-proxy-launcher: fetching the mingw-w64 cross compiler into $toolchain (once)" >&2
        download_toolchain
    fi
    # The unpacked driver finds cc1, as, ld, the headers and the import libraries relative to its own location.
    echo "$toolchain/usr/bin/x86_64-w64-mingw32-gcc-win32"
}

# Compiles version.rc into the COFF object $2 with the windres beside the compiler $1, for $version: FILEVERSION
# takes four numbers (the leading digits of the dot-separated parts, e.g. 0.1.0-SNAPSHOT -> 0,1,0,0).
compile_version_resource() {
    local windres=${1%gcc*}windres
    [[ $1 == */* ]] || windres=$(command -v "$windres" || echo "$windres")
    [[ -x $windres ]] || windres=$(dirname "$(command -v "$1")")/x86_64-w64-mingw32-windres
    [[ -x $windres ]] || die "no windres beside $1: the version resource of kube-proxy.exe cannot be compiled"
    local numbers=() part
    IFS=. read -ra parts <<< "${version%%-*}"
    for part in "${parts[@]:0:4}"; do
        part=${part//[^0-9]/}
        numbers+=("$(( 10#${part:-0} ))")
    done
    while (( ${#numbers[@]} < 4 )); do numbers+=(0); done
    local list
    list=$(IFS=,; echo "${numbers[*]}")
    "$windres" -O coff -I "$sources" -DWINPROXY_VERSION_NUMBERS="$list" \
        -DWINPROXY_VERSION_TEXT="\\\"$version\\\"" -i "$sources"/version.rc -o "$2" \
        || die "compiling the version resource with $windres failed"
}

if up_to_date; then
    exit 0
fi
gcc=$(find_compiler)
mkdir -p "$(dirname "$output")"
if [[ -n $tools ]]; then
    "$gcc" -std=c11 -O2 -Wall -Wextra -Werror -static -static-libgcc -s -o "$tools/java.exe" \
        "$test_sources"/java-standin.c -lshell32 \
        || die "compiling the stand-in java.exe with $gcc failed"
    "$gcc" -std=c11 -O2 -Wall -Wextra -Werror -static -static-libgcc -s -I"$sources" -o "$output.tmp" \
        "$test_sources"/harness.c "$sources"/cmdline.c -lshell32 \
        || die "compiling harness.exe with $gcc failed"
    mv -f "$output.tmp" "$output"
    echo "kube-proxy-launcher: built $tools/harness.exe and $tools/java.exe with $gcc"
    exit 0
fi
compile_version_resource "$gcc" "$output.res.o"
# -municode is not needed: main() reads GetCommandLineW itself. Static libgcc: the exe depends on system DLLs only.
"$gcc" -std=c11 -O2 -Wall -Wextra -Werror -static -static-libgcc -s \
    -o "$output.tmp" "$sources"/launcher.c "$sources"/service.c "$sources"/svcstate.c "$sources"/cmdline.c \
    "$sources"/jvmdefaults.c "$output.res.o" -lkernel32 -ladvapi32 \
    || die "compiling kube-proxy.exe with $gcc failed"
rm -f "$output.res.o"
mv -f "$output.tmp" "$output"
echo "$version" > "$output.version"
echo "kube-proxy-launcher: built $output with $gcc"
