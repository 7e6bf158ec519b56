package io.winproxy.launcher;

import java.util.Random;

/** Random command-line text dense in the characters that matter to Windows argument splitting. */
final class RandomCommandLines {
    private static final String[] PIECES = {
        "\"", "\"", "\\", "\\", "\\\\", " ", " ", "\t", "a", "b", "-", "=", "*", "?", "é", "名", "😀", "\n", "\"\"",
        "\\\"", "C:\\k\\",
    };

    private RandomCommandLines() {
    }

    static String line(Random random, int pieces) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < pieces; i++) {
            line.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return line.toString();
    }
}
