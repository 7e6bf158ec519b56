package io.winproxy.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random command-line text dense in the characters that matter to Windows argument splitting. */
final class RandomCommandLines {
    private static final String[] PIECES = {
        "\"", "\"", "\\", "\\", "\\\\", " ", " ", "\t", "a", "b", "-", "=", "*", "?", "é", "名", "😀", "\n", "\"\"",
        "\\\"", "C:\\k\\",
    };

    private RandomCommandLines() {
    }

    /**
     * {@code count} lines from a generator seeded with {@code seed}, each of {@code minPieces} plus a random number
     * below {@code morePieces} pieces (the same sequence for the same arguments).
     */
    static List<String> lines(long seed, int count, int minPieces, int morePieces) {
        Random random = new Random(seed);
        List<String> lines = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lines.add(line(random, minPieces + random.nextInt(morePieces)));
        }
        return lines;
    }

    static String line(Random random, int pieces) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < pieces; i++) {
            line.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return line.toString();
    }
}
