package io.winproxy.hns.explain;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table with a header row and left-aligned, space-padded columns (last column unpadded). */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    TextTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    TextTable row(String... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("expected " + columns + " cells, got " + cells.length);
        }
        String[] copy = new String[columns];
        for (int i = 0; i < columns; i++) {
            copy[i] = cells[i] == null || cells[i].isEmpty() ? "-" : cells[i];
        }
        rows.add(copy);
        return this;
    }

    boolean isEmpty() {
        return rows.size() == 1;
    }

    String render() {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(r[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - r[i].length() + 2));
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
