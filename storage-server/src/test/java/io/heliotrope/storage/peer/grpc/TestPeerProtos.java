package io.heliotrope.storage.peer.grpc;

import com.google.protobuf.ByteString;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.CopyState;
import io.heliotrope.proto.storage.v1.FetchRequest;
import io.heliotrope.proto.storage.v1.FetchResponse;
import io.heliotrope.proto.storage.v1.HeatResponse;
import io.heliotrope.proto.storage.v1.PeerImage;
import io.heliotrope.proto.storage.v1.PushRequest;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.peer.Peers.Wanted;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a peer sends is checked before anything acts on it. */
class TestPeerProtos {
    @Test
    void heatTravelsInMessagesOfAtMostABatchAndComesBackWhole() {
        long[] blocks = LongStream.range(0, 2 * PeerGrpcService.HEAT_BATCH + 1).map(i -> 3 * i % 40_000).toArray();

        List<HeatResponse> responses = PeerProtos.heatResponses(new Recorded(7, blocks), PeerGrpcService.HEAT_BATCH);

        assertThat(responses).extracting(HeatResponse::getBlocksCount).containsExactly(PeerGrpcService.HEAT_BATCH, PeerGrpcService.HEAT_BATCH, 1);
        assertThat(responses).extracting(HeatResponse::getEpoch).containsOnly(7L);
        Heat heat = PeerProtos.heat("b", responses, Integer.MAX_VALUE);
        assertThat(heat.site()).isEqualTo("b");
        assertThat(heat.epoch()).isEqualTo(7);
        assertThat(heat.blocks()).containsExactly(blocks);
        assertThat(PeerProtos.heat("b", responses, 3).blocks()).containsExactly(0, 3, 6);
    }

    @Test
    void noHeatIsOneMessageOfEpochZero() {
        assertThat(PeerProtos.heatResponses(Recorded.NONE, PeerGrpcService.HEAT_BATCH)).containsExactly(HeatResponse.getDefaultInstance());
        assertThat(PeerProtos.heat("b", List.of(HeatResponse.getDefaultInstance()), 10).epoch()).isZero();
    }

    @Test
    void heatOfTwoEpochsInOneAnswerIsRefused() {
        List<HeatResponse> responses = List.of(HeatResponse.newBuilder().setEpoch(3).addBlocks(1).build(), HeatResponse.newBuilder().setEpoch(4).build());

        assertThatThrownBy(() -> PeerProtos.heat("b", responses, 10))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> hasCode(e, ErrorCode.STORAGE_FAILURE))
                .hasMessage("site b answered with heat of epochs 3 and 4 in one answer");
    }

    @Test
    void aFetchOfMoreBlocksThanABatchHoldsIsRefused() {
        FetchRequest.Builder request = FetchRequest.newBuilder();
        for (int block = 0; block <= PeerProtos.MAX_BATCH; block++) {
            request.addBlocks(block).addVersions(1);
        }

        assertThatThrownBy(() -> PeerProtos.wanted(request.build()))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> hasCode(e, ErrorCode.INVALID_ARGUMENT))
                .hasMessage("a batch names 1025 blocks, more than 1024");
    }

    @Test
    void aPushedCopyOfAnotherSizeThanABlockIsRefused() {
        PushRequest request = PushRequest.newBuilder().addBlocks(3).addVersions(1).addData(ByteString.copyFrom(new byte[100])).build();

        assertThatThrownBy(() -> PeerProtos.copies(request))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> hasCode(e, ErrorCode.INVALID_ARGUMENT))
                .hasMessage("block 3: a pushed copy holds 4096 bytes or none, not 100");
    }

    @Test
    void anIdentityThatIsNotAUuidIsRefused() {
        assertThatThrownBy(() -> PeerProtos.image(PeerImage.newBuilder().setName("disk").setIdentity("nope").build()))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> hasCode(e, ErrorCode.INVALID_ARGUMENT))
                .hasMessage("image disk: identity nope is not a uuid");
    }

    @Test
    void anAnswerWithoutTheDataOfABlockIsAFailureOfThePeer() {
        FetchResponse response = FetchResponse.newBuilder().addStates(CopyState.COPY_STATE_DATA).build();

        assertThatThrownBy(() -> PeerProtos.copies(List.of(new Wanted(7, 1)), response, "b"))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> hasCode(e, ErrorCode.STORAGE_FAILURE))
                .hasMessage("site b answered with no 4096 bytes for block 7");
    }

    private static void hasCode(HeliotropeException e, ErrorCode code) {
        assertThat(e.code()).isEqualTo(code);
    }
}
