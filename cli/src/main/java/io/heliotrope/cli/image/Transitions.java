package io.heliotrope.cli.image;

import io.heliotrope.cli.print.SquareTable;
import io.heliotrope.proto.controller.v1.TransitionTable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Transition tables on the command line: {@code FROM:TO=P,...}, for example
 * {@code virginia:taiwan=0.9,virginia:virginia=0.1}. Pairs not given are 0; a site named
 * only as a destination has no row; the controller checks that each row sums to 1.
 * {@code none} is the empty table.
 */
final class Transitions implements ITypeConverter<TransitionTable> {
    @Override
    public TransitionTable convert(String value) {
        return parse(value);
    }

    static TransitionTable parse(String value) {
        if (value.trim().equalsIgnoreCase("none")) {
            return TransitionTable.getDefaultInstance();
        }
        Map<String, Map<String, Double>> rows = new LinkedHashMap<>();
        List<String> sites = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            String[] pair = entry.trim().split("[:=]", -1);
            if (pair.length != 3 || pair[0].isEmpty() || pair[1].isEmpty()) {
                throw new TypeConversionException("invalid transition '" + entry.trim() + "': use FROM:TO=P, for example virginia:taiwan=0.9");
            }
            for (String site : List.of(pair[0], pair[1])) {
                if (!sites.contains(site)) {
                    sites.add(site);
                }
            }
            if (rows.computeIfAbsent(pair[0], from -> new LinkedHashMap<>()).put(pair[1], probability(entry.trim(), pair[2])) != null) {
                throw new TypeConversionException("transition " + pair[0] + ":" + pair[1] + " is given twice");
            }
        }
        TransitionTable.Builder table = TransitionTable.newBuilder().addAllSites(sites);
        for (String from : sites) {
            for (String to : sites) {
                table.addProbabilities(rows.getOrDefault(from, Map.of()).getOrDefault(to, 0.0));
            }
        }
        return table.build();
    }

    /** Prints the table as a square of probabilities; "-" for a site without a row. */
    static void print(PrintStream out, TransitionTable table) {
        int n = table.getSitesCount();
        if (n == 0) {
            out.println("  none");
            return;
        }
        List<String> sites = table.getSitesList();
        SquareTable.print(out, sites, (from, to) -> {
            int row = sites.indexOf(from);
            boolean known = table.getProbabilitiesList().subList(row * n, row * n + n).stream().anyMatch(p -> p > 0);
            return known ? String.format(Locale.ROOT, "%.3f", table.getProbabilities(row * n + sites.indexOf(to))) : "-";
        });
    }

    private static double probability(String entry, String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("invalid probability in '" + entry + "': use a number between 0 and 1");
        }
    }
}
