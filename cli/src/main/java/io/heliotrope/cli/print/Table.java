package io.heliotrope.cli.print;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns for people: each as wide as its widest cell, two spaces apart, left- or right-aligned. */
public final class Table {
    private final String alignment;
    private final List<String[]> rows = new ArrayList<>();

    /** @param alignment one character per column: {@code <} left-aligns it (text), {@code >} right-aligns it (numbers) */
    public Table(String alignment, String... header) {
        if (alignment.length() != header.length || !alignment.matches("[<>]*")) {
            throw new IllegalArgumentException("alignment '" + alignment + "' does not fit " + header.length + " columns");
        }
        this.alignment = alignment;
        rows.add(header);
    }

    public Table add(Object... cells) {
        if (cells.length != alignment.length()) {
            throw new IllegalArgumentException(cells.length + " cells for " + alignment.length() + " columns");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = String.valueOf(cells[i]);
        }
        rows.add(row);
        return this;
    }

    public boolean hasRows() {
        return rows.size() > 1;
    }

    /** Prints the header and the rows, each line after {@code indent}, without trailing spaces. */
    public void print(PrintStream out, String indent) {
        int[] widths = new int[alignment.length()];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int i = 0; i < row.length; i++) {
                String pad = " ".repeat(widths[i] - row[i].length());
                line.append(i == 0 ? "" : "  ").append(alignment.charAt(i) == '>' ? pad + row[i] : row[i] + pad);
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
