package io.winproxy.agent.state;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Pure codecs for the Windows binary forms of a SID and an ACL (MS-DTYP 2.4.2.2 SID, 2.4.5 ACL, 2.4.4 ACEs), so
 * that the native edge only moves bytes.
 */
final class SecurityBytes {
    private static final int ACL_REVISION = 2;

    private SecurityBytes() {
    }

    /** {@code S-1-5-32-544} to its binary form. */
    static byte[] sid(String text) {
        String[] parts = text.split("-");
        if (parts.length < 3 || !parts[0].equalsIgnoreCase("S") || !parts[1].equals("1")) {
            throw new IllegalArgumentException("not a SID: " + text);
        }
        int subCount = parts.length - 3;
        ByteBuffer out = ByteBuffer.allocate(8 + 4 * subCount).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte) 1).put((byte) subCount);
        long authority = Long.parseLong(parts[2]);
        for (int shift = 40; shift >= 0; shift -= 8) {
            out.put((byte) (authority >>> shift));
        }
        for (int i = 3; i < parts.length; i++) {
            out.putInt((int) Long.parseLong(parts[i]));
        }
        return out.array();
    }

    /** Length in bytes of the binary SID starting at {@code sid[0]} (needs its first two bytes). */
    static int sidLength(int subAuthorityCount) {
        return 8 + 4 * subAuthorityCount;
    }

    /** A binary SID at {@code offset} to {@code S-1-...}. */
    static String sidString(byte[] bytes, int offset) {
        int subCount = bytes[offset + 1] & 0xff;
        long authority = 0;
        for (int i = 2; i < 8; i++) {
            authority = (authority << 8) | (bytes[offset + i] & 0xff);
        }
        StringBuilder text = new StringBuilder("S-").append(bytes[offset] & 0xff).append('-').append(authority);
        ByteBuffer subs = ByteBuffer.wrap(bytes, offset + 8, 4 * subCount).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < subCount; i++) {
            text.append('-').append(Integer.toUnsignedLong(subs.getInt()));
        }
        return text.toString();
    }

    /** An ACL of plain allow/deny ACEs in binary form. */
    static byte[] acl(List<Ace> aces) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Ace ace : aces) {
            byte[] sid = sid(ace.sid());
            ByteBuffer entry = ByteBuffer.allocate(8 + sid.length).order(ByteOrder.LITTLE_ENDIAN);
            entry.put((byte) ace.type()).put((byte) ace.flags()).putShort((short) (8 + sid.length))
                    .putInt(ace.mask()).put(sid);
            body.writeBytes(entry.array());
        }
        ByteBuffer acl = ByteBuffer.allocate(8 + body.size()).order(ByteOrder.LITTLE_ENDIAN);
        acl.put((byte) ACL_REVISION).put((byte) 0).putShort((short) (8 + body.size())).putShort((short) aces.size())
                .putShort((short) 0).put(body.toByteArray());
        return acl.array();
    }

    /** The size field of a binary ACL header. */
    static int aclSize(byte[] header) {
        return ByteBuffer.wrap(header, 2, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffff;
    }

    /** Parses a binary ACL; ACE types without a trustee SID in a known place (audit, label) are skipped. */
    static List<Ace> parseAcl(byte[] acl) {
        ByteBuffer in = ByteBuffer.wrap(acl).order(ByteOrder.LITTLE_ENDIAN);
        int count = in.getShort(4) & 0xffff;
        List<Ace> aces = new ArrayList<>(count);
        int offset = 8;
        for (int i = 0; i < count; i++) {
            int type = acl[offset] & 0xff;
            int flags = acl[offset + 1] & 0xff;
            int size = in.getShort(offset + 2) & 0xffff;
            int mask = in.getInt(offset + 4);
            int sidOffset = switch (type) {
                case 0, 1, 9, 10 -> offset + 8;
                case 5, 6, 11, 12 -> {
                    int objectFlags = in.getInt(offset + 8);
                    yield offset + 12 + ((objectFlags & 1) != 0 ? 16 : 0) + ((objectFlags & 2) != 0 ? 16 : 0);
                }
                default -> -1;
            };
            if (sidOffset >= 0) {
                aces.add(new Ace(type, flags, mask, sidString(acl, sidOffset)));
            }
            if (size < 8) {
                throw new IllegalArgumentException("malformed ACE of size " + size);
            }
            offset += size;
        }
        return aces;
    }
}
