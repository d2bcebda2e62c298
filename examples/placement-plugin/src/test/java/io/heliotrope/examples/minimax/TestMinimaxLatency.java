package io.heliotrope.examples.minimax;

import io.heliotrope.examples.minimax.FrontEnds.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Explanation.Term;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

final class TestMinimaxLatency {
    private static final List<String> SITES = List.of("oregon", "taiwan", "virginia");
    /** Rows are the measuring site's, in microseconds. */
    private static final long[][] MICROS = {
            {1_000, 120_000, 71_000},
            {120_000, 1_000, 200_000},
            {70_000, 200_000, 1_000}};
    private static final RttMatrix RTT = new RttMatrix() {
        public int count() { return SITES.size(); }
        public String name(int site) { return SITES.get(site); }
        public int indexOf(String name) { return SITES.indexOf(name); }
        public long micros(int from, int to) { return MICROS[from][to]; }
    };
    private static final MinimaxLatency POLICY = new MinimaxLatency();

    @Test
    void theWorstFrontEndDecidesNotTheBusiest() {
        // 100 requests a second from virginia, 1 from oregon, none from taiwan: single-vm's
        // weighted sum picks virginia (100 * 1 ms + 1 * 71 ms against 100 * 70 ms + 1 * 1 ms
        // at oregon); the worst round trip picks oregon (70 ms against 71 ms).
        Scorer scorer = POLICY.prepare(app(""), new FrontEnds(List.of(
                new FrontEnd("virginia", 100), new FrontEnd("oregon", 1), new FrontEnd("taiwan", 0))), RTT);

        assertEquals(-70_000, scorer.score(at(0)));
        assertEquals(-200_000, scorer.score(at(1)));
        assertEquals(-71_000, scorer.score(at(2)));
        assertEquals(new Explanation(-71_000, List.of(new Term("L[oregon]", 71_000, -71_000), new Term("L[virginia]", 1_000, 0))),
                scorer.explain(at(2)));
    }

    @Test
    void theFilterHonoursAvoid() {
        Application app = app("taiwan, oregon");

        assertEquals(Verdict.reject("web1 may not run at taiwan (avoid=taiwan, oregon)"), POLICY.filter(app, RTT, at(1)));
        assertEquals(Verdict.ACCEPT, POLICY.filter(app, RTT, at(2)));
    }

    @Test
    void smoothingAveragesEachFrontEndOverTheWindow() {
        FrontEnds smoothed = POLICY.smooth(List.of(
                new TimedReport<>(Instant.EPOCH, new FrontEnds(List.of(new FrontEnd("virginia", 10)))),
                new TimedReport<>(Instant.EPOCH, new FrontEnds(List.of(new FrontEnd("oregon", 4), new FrontEnd("virginia", 20))))));

        assertEquals(new FrontEnds(List.of(new FrontEnd("oregon", 2), new FrontEnd("virginia", 15))), smoothed);
    }

    @Test
    void anApplicationOfTwoVmsIsRefused() {
        Application two = new Application("web", List.of("web1", "web2"), -1, Map.of());

        assertEquals("minimax-latency places one VM; web has 2",
                assertThrows(IllegalArgumentException.class, () -> POLICY.validate(two)).getMessage());
    }

    private static Application app(String avoid) {
        return new Application("web", List.of("web1"), -1, Map.of("avoid", avoid));
    }

    private static Plan at(int site) {
        return new Plan() {
            public int size() { return 1; }
            public int site(int vm) { return site; }
        };
    }
}
