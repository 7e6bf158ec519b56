package io.winproxy.installer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The version resource (RT_VERSION) of a PE32+ executable, read the way Windows' version API reads it: through the
 * resource data directory (type 16, its first name and language) to the VS_VERSIONINFO block, whose
 * VS_FIXEDFILEINFO holds the numeric file and product versions and whose StringFileInfo tables hold the strings
 * ({@code FileVersion}, {@code ProductVersion}, ...) that {@code (Get-Item x.exe).VersionInfo} shows.
 *
 * @param fileVersion    FILEVERSION as four dot-separated numbers
 * @param productVersion PRODUCTVERSION likewise
 * @param strings        every string of every StringFileInfo table, by key
 */
record PeVersionResource(String fileVersion, String productVersion, Map<String, String> strings) {
    private static final int RT_VERSION = 16;
    private static final int FIXED_FILE_INFO_SIGNATURE = 0xFEEF04BD;

    /** Reads the version resource of {@code exe}; throws {@link IllegalArgumentException} when it has none. */
    static PeVersionResource of(byte[] exe) {
        ByteBuffer pe = ByteBuffer.wrap(exe).order(ByteOrder.LITTLE_ENDIAN);
        int header = pe.getInt(0x3C);
        int sections = pe.getShort(header + 6) & 0xFFFF;
        int optionalSize = pe.getShort(header + 20) & 0xFFFF;
        int optional = header + 24;
        if ((pe.getShort(optional) & 0xFFFF) != 0x20B) {
            throw new IllegalArgumentException("not PE32+");
        }
        int resourceRva = pe.getInt(optional + 112 + 2 * 8);
        if (resourceRva == 0) {
            throw new IllegalArgumentException("no resource directory");
        }
        int sectionTable = optional + optionalSize;
        int resourceBase = -1;
        int sectionRva = 0;
        int sectionRaw = 0;
        for (int i = 0; i < sections; i++) {
            int s = sectionTable + 40 * i;
            int virtualAddress = pe.getInt(s + 12);
            int size = Math.max(pe.getInt(s + 8), pe.getInt(s + 16));
            if (resourceRva >= virtualAddress && resourceRva < virtualAddress + size) {
                sectionRva = virtualAddress;
                sectionRaw = pe.getInt(s + 20);
                resourceBase = resourceRva - virtualAddress + sectionRaw;
            }
        }
        if (resourceBase < 0) {
            throw new IllegalArgumentException("the resource directory is in no section");
        }
        int type = entry(pe, resourceBase, resourceBase, RT_VERSION);
        int name = entry(pe, resourceBase, resourceBase + (type & 0x7FFFFFFF), -1);
        int language = entry(pe, resourceBase, resourceBase + (name & 0x7FFFFFFF), -1);
        int dataEntry = resourceBase + language;
        int data = pe.getInt(dataEntry) - sectionRva + sectionRaw;
        return versionInfo(pe, data);
    }

    /** The OffsetToData of the directory entry with {@code id}, or of the first entry for -1. */
    private static int entry(ByteBuffer pe, int base, int directory, int id) {
        int count = (pe.getShort(directory + 12) & 0xFFFF) + (pe.getShort(directory + 14) & 0xFFFF);
        for (int i = 0; i < count; i++) {
            int e = directory + 16 + 8 * i;
            if (id == -1 || pe.getInt(e) == id) {
                return pe.getInt(e + 4);
            }
        }
        throw new IllegalArgumentException("no resource entry " + (id == -1 ? "" : "with id " + id));
    }

    private static PeVersionResource versionInfo(ByteBuffer pe, int at) {
        Block root = Block.at(pe, at);
        if (!root.key.equals("VS_VERSION_INFO") || pe.getInt(root.value) != FIXED_FILE_INFO_SIGNATURE) {
            throw new IllegalArgumentException("no VS_VERSIONINFO");
        }
        String file = version(pe.getInt(root.value + 8), pe.getInt(root.value + 12));
        String product = version(pe.getInt(root.value + 16), pe.getInt(root.value + 20));
        Map<String, String> strings = new LinkedHashMap<>();
        for (Block info : root.children(pe)) {
            if (info.key.equals("StringFileInfo")) {
                for (Block table : info.children(pe)) {
                    for (Block string : table.children(pe)) {
                        strings.put(string.key, string.text(pe));
                    }
                }
            }
        }
        return new PeVersionResource(file, product, strings);
    }

    private static String version(int most, int least) {
        return (most >>> 16) + "." + (most & 0xFFFF) + "." + (least >>> 16) + "." + (least & 0xFFFF);
    }

    /** One block of the version resource: wLength, wValueLength, wType, szKey, padding, value, children. */
    private record Block(int start, int length, int valueLength, int type, String key, int value, int childrenAt) {
        static Block at(ByteBuffer pe, int start) {
            int length = pe.getShort(start) & 0xFFFF;
            int valueLength = pe.getShort(start + 2) & 0xFFFF;
            int type = pe.getShort(start + 4) & 0xFFFF;
            int end = start + 6;
            while (pe.getShort(end) != 0) {
                end += 2;
            }
            byte[] key = new byte[end - start - 6];
            pe.get(start + 6, key);
            int value = align(end + 2);
            int valueBytes = type == 1 ? 2 * valueLength : valueLength;
            return new Block(start, length, valueLength, type, new String(key, StandardCharsets.UTF_16LE), value,
                    align(value + valueBytes));
        }

        Iterable<Block> children(ByteBuffer pe) {
            java.util.List<Block> children = new java.util.ArrayList<>();
            for (int at = childrenAt; at < start + length; ) {
                Block child = Block.at(pe, at);
                if (child.length == 0) {
                    break;
                }
                children.add(child);
                at = align(at + child.length);
            }
            return children;
        }

        String text(ByteBuffer pe) {
            byte[] bytes = new byte[Math.max(0, 2 * valueLength - 2)];
            pe.get(value, bytes);
            return new String(bytes, StandardCharsets.UTF_16LE);
        }

        private static int align(int offset) {
            return (offset + 3) & ~3;
        }
    }
}
