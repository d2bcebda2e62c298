package io.heliotrope.scheduler.workload;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.policy.EnsemblePolicy;
import io.heliotrope.scheduler.policy.EnsembleWorkload;
import io.heliotrope.scheduler.policy.SingleVmPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWorkloadReader {
    private final WorkloadReader reader = new WorkloadReader();

    @Test
    void mapsAReportOntoThePolicysWorkloadType() {
        EnsembleWorkload workload = reader.read(new EnsemblePolicy(), "{\"leader\":\"zk2\",\"frontEnds\":[{\"site\":\"taiwan\",\"reads\":900,\"writes\":100}]}");

        assertThat(workload.leader()).hasValue("zk2");
        assertThat(workload.sites()).containsExactly("taiwan");
    }

    @Test
    void anUnknownFieldIsRefusedByItsPath() {
        assertThatThrownBy(() -> reader.read(new SingleVmPolicy(), "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":1,\"rps\":2}]}"))
                .isInstanceOf(HeliotropeException.class)
                .hasMessageStartingWith("workload report for policy single-vm: field frontEnds[0].rps: Unrecognized field \"rps\"");
    }

    @Test
    void aValueTheTypeRefusesIsRefusedWithItsFieldAndWhy() {
        assertThatThrownBy(() -> reader.read(new SingleVmPolicy(), "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":-1}]}"))
                .hasMessage("workload report for policy single-vm: field frontEnds[0]: rate of front end taiwan must be a finite number >= 0, not -1.0");
    }

    @Test
    void aMistypedValueNamesItsField() {
        assertThatThrownBy(() -> reader.read(new SingleVmPolicy(), "{\"frontEnds\":[{\"site\":\"taiwan\",\"rate\":\"fast\"}]}"))
                .hasMessageStartingWith("workload report for policy single-vm: field frontEnds[0].rate: Cannot deserialize value of type `double` from String \"fast\"");
    }

    @Test
    void textThatIsNotJsonIsRefusedAsSuch() {
        assertThatThrownBy(() -> reader.read(new SingleVmPolicy(), "frontEnds: taiwan"))
                .hasMessageStartingWith("workload report for policy single-vm is not JSON: Unrecognized token 'frontEnds'");
        assertThatThrownBy(() -> reader.read(new SingleVmPolicy(), "null"))
                .hasMessage("workload report for policy single-vm is empty (null)");
    }
}
