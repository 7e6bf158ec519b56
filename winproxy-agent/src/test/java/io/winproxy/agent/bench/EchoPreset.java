package io.winproxy.agent.bench;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.HnsEmulator;
import java.util.Locale;

/**
 * The emulated HNS a run is measured against: what a Windows Server release reports and echoes back. This is the one
 * place that turns a profile name into an emulator.
 *
 * <p>A profile sets the HNS version preset of its release and the emulator's {@link EchoProfile} of the same name;
 * {@link #VERBATIM} is HNS 15.4 echoing every field as written.
 */
enum EchoPreset {
    VERBATIM(HnsVersion.WINDOWS_SERVER_2025),
    WS2019(HnsVersion.WINDOWS_SERVER_2019),
    WS2022(HnsVersion.WINDOWS_SERVER_2022),
    WS2025(HnsVersion.WINDOWS_SERVER_2025);

    private final HnsVersion version;

    EchoPreset(HnsVersion version) {
        this.version = version;
    }

    /** A fresh in-memory emulator for this profile (a fixed seed, so GUIDs are the same from run to run). */
    HnsEmulator emulator() {
        return HnsEmulator.builder().version(version).echo(EchoProfile.valueOf(name())).seed(1).build();
    }

    HnsVersion version() {
        return version;
    }

    /** {@code ws2022}, {@code WS2022} or {@code 2022}; one-line message otherwise. */
    static EchoPreset parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        for (EchoPreset p : values()) {
            if (p.name().equals(t) || p.name().equals("WS" + t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown echo profile '" + text + "' (want VERBATIM, WS2019, WS2022 or"
                + " WS2025)");
    }
}
