package io.heliotrope.scheduler.spi;

import java.util.List;

/** A plan's score and the terms it is the sum of. */
public record Explanation(double score, List<Term> terms) {
    public Explanation {
        terms = List.copyOf(terms);
    }

    /**
     * One term: {@code name} says what it is ({@code "R[virginia]"}, {@code "W3"}), {@code value}
     * its own quantity (a round trip in microseconds, for the built-ins), {@code contribution}
     * what it adds to the score.
     */
    public record Term(String name, double value, double contribution) {
    }
}
