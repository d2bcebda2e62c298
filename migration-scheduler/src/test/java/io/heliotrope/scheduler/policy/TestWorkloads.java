package io.heliotrope.scheduler.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.heliotrope.scheduler.spi.TimedReport;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWorkloads {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void mapsTheSingleVmReport() throws Exception {
        SingleVmWorkload workload = MAPPER.readValue("{\"frontEnds\":[{\"site\":\"virginia\",\"rate\":120.5}]}", SingleVmWorkload.class);
        assertThat(workload).isEqualTo(new SingleVmWorkload(List.of(new SingleVmWorkload.FrontEnd("virginia", 120.5))));
        assertThat(workload.sites()).containsExactly("virginia");
        assertThat(workload.leader()).isEmpty();
    }

    @Test
    void mapsTheEnsembleReportWithOrWithoutItsLeader() throws Exception {
        EnsembleWorkload workload = MAPPER.readValue(
                "{\"leader\":\"zk1\",\"frontEnds\":[{\"site\":\"virginia\",\"reads\":900,\"writes\":100},{\"site\":\"tokyo\",\"reads\":5,\"writes\":0}]}",
                EnsembleWorkload.class);
        assertThat(workload).isEqualTo(new EnsembleWorkload("zk1", List.of(
                new EnsembleWorkload.FrontEnd("virginia", 900, 100), new EnsembleWorkload.FrontEnd("tokyo", 5, 0))));
        assertThat(workload.leader()).contains("zk1");
        assertThat(workload.sites()).isEqualTo(Set.of("virginia", "tokyo"));
        assertThat(MAPPER.readValue("{\"frontEnds\":[]}", EnsembleWorkload.class).leader()).isEmpty();
    }

    @Test
    void refusesBadRatesNamingTheField() {
        assertThatThrownBy(() -> MAPPER.readValue("{\"frontEnds\":[{\"site\":\"virginia\",\"rate\":-1}]}", SingleVmWorkload.class))
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate of front end virginia must be a finite number >= 0, not -1.0");
        assertThatThrownBy(() -> MAPPER.readValue("{\"frontEnds\":[{\"site\":\"tokyo\",\"reads\":1,\"writes\":-0.5}]}", EnsembleWorkload.class))
                .rootCause()
                .hasMessage("writes of front end tokyo must be a finite number >= 0, not -0.5");
        assertThatThrownBy(() -> MAPPER.readValue("{}", SingleVmWorkload.class))
                .rootCause()
                .hasMessage("frontEnds is missing");
        assertThatThrownBy(() -> MAPPER.readValue("{\"frontEnds\":[{\"rate\":1}]}", SingleVmWorkload.class))
                .rootCause()
                .hasMessage("a front end's site is missing");
        assertThatThrownBy(() -> new SingleVmWorkload(List.of(new SingleVmWorkload.FrontEnd("a", 1), new SingleVmWorkload.FrontEnd("a", 2))))
                .hasMessage("front end site a is listed twice");
        assertThatThrownBy(() -> new SingleVmWorkload.FrontEnd("a", Double.NaN))
                .hasMessage("rate of front end a must be a finite number >= 0, not NaN");
    }

    @Test
    void refusesUnknownFields() {
        assertThatThrownBy(() -> MAPPER.readValue("{\"frontEnds\":[{\"site\":\"virginia\",\"rate\":1,\"rtt\":3}]}", SingleVmWorkload.class))
                .isInstanceOf(UnrecognizedPropertyException.class)
                .hasMessageContaining("\"rtt\"");
        assertThatThrownBy(() -> MAPPER.readValue("{\"leaderVm\":\"zk1\",\"frontEnds\":[]}", EnsembleWorkload.class))
                .isInstanceOf(UnrecognizedPropertyException.class)
                .hasMessageContaining("\"leaderVm\"");
    }

    @Test
    void singleVmAveragesEachFrontEndOverTheWindow() {
        SingleVmWorkload smoothed = new SingleVmPolicy().smooth(List.of(
                report(new SingleVmWorkload(List.of(new SingleVmWorkload.FrontEnd("a", 10), new SingleVmWorkload.FrontEnd("b", 4)))),
                report(new SingleVmWorkload(List.of(new SingleVmWorkload.FrontEnd("a", 20)))),
                report(new SingleVmWorkload(List.of(new SingleVmWorkload.FrontEnd("c", 3), new SingleVmWorkload.FrontEnd("a", 30))))));
        // a: (10 + 20 + 30) / 3; b: (4 + 0 + 0) / 3; c: (0 + 0 + 3) / 3
        assertThat(smoothed.frontEnds()).containsExactly(
                new SingleVmWorkload.FrontEnd("a", 20), new SingleVmWorkload.FrontEnd("b", 4.0 / 3), new SingleVmWorkload.FrontEnd("c", 1));
    }

    @Test
    void ensembleAveragesEachFrontEndAndKeepsTheNewestLeader() {
        EnsemblePolicy policy = new EnsemblePolicy();
        EnsembleWorkload smoothed = policy.smooth(List.of(
                report(new EnsembleWorkload("zk1", List.of(new EnsembleWorkload.FrontEnd("a", 10, 2)))),
                report(new EnsembleWorkload("zk2", List.of(new EnsembleWorkload.FrontEnd("b", 6, 0)))),
                report(new EnsembleWorkload(null, List.of(new EnsembleWorkload.FrontEnd("a", 20, 4))))));
        // a: reads (10 + 0 + 20) / 3, writes (2 + 0 + 4) / 3; b: reads 6 / 3, writes 0; the newest leader named is zk2
        assertThat(smoothed).isEqualTo(new EnsembleWorkload("zk2", List.of(
                new EnsembleWorkload.FrontEnd("a", 10, 2), new EnsembleWorkload.FrontEnd("b", 2, 0))));
        assertThat(policy.smooth(List.of(report(new EnsembleWorkload(null, List.of())))).leader()).isEmpty();
    }

    private static <W extends io.heliotrope.scheduler.spi.Workload> TimedReport<W> report(W workload) {
        return new TimedReport<>(Instant.EPOCH, workload);
    }
}
