package io.heliotrope.cli.print;

import java.io.PrintStream;
import java.util.List;
import java.util.function.BiFunction;

/** A site x site table for people: rows are "from", columns "to", cells right-aligned. */
public final class SquareTable {
    private SquareTable() {}

    /** Prints one line per site, indented by two spaces; {@code cell} gives the text of (from, to). */
    public static void print(PrintStream out, List<String> sites, BiFunction<String, String, String> cell) {
        int width = "FROM\\TO".length();
        for (String site : sites) {
            width = Math.max(width, site.length());
            for (String to : sites) {
                width = Math.max(width, cell.apply(site, to).length());
            }
        }
        String format = "%" + width + "s";
        StringBuilder header = new StringBuilder("  ").append(String.format("%-" + width + "s", "FROM\\TO"));
        sites.forEach(to -> header.append("  ").append(String.format(format, to)));
        out.println(header);
        for (String from : sites) {
            StringBuilder line = new StringBuilder("  ").append(String.format("%-" + width + "s", from));
            sites.forEach(to -> line.append("  ").append(String.format(format, cell.apply(from, to))));
            out.println(line);
        }
    }
}
