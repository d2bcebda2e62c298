package io.heliotrope.controller.server;

import com.google.protobuf.util.JsonFormat;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.AwaitHandoffRequest;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.GetClusterStatusRequest;
import io.heliotrope.proto.controller.v1.GetImageLocalityRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.HandoffRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.ListImagesRequest;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenImageResponse;
import io.heliotrope.proto.controller.v1.OpenMode;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.PrepareRequest;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.SetImageRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.TransitionCount;
import io.heliotrope.proto.controller.v1.TransitionTable;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(ZooKeeperExtension.class)
class TestControllerServer {
    private static final int ENTRIES = 150_000;

    private ControllerServer server;
    private ManagedChannel channel;
    private ControllerServiceGrpc.ControllerServiceBlockingStub client;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) throws IOException {
        server = ControllerServer.start(new ControllerConfig(zooKeeper.connectString(), null, 0, 0, null, null, TestingController.newRoot()));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.grpcPort(), InsecureChannelCredentials.create()).build();
        client = ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    @Test
    void listensOnlyOnItsBindAddress() {
        assertThat(client.listImages(ListImagesRequest.getDefaultInstance()).getImagesList()).isEmpty();
        // Every 127/8 address reaches this host on Linux: only a server bound to all of them would answer here.
        assertThatThrownBy(() -> new Socket("127.0.0.2", server.grpcPort()).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void aSiteRegistersWhatTheSchedulerPlacesBy() {
        client.registerSite(Site.newBuilder().setName("a").setGrpcAddress("a:7410").setVmMemoryBytes(8L << 30).setIntraSiteRttMicros(250).build());
        client.registerSite(Site.newBuilder().setName("b").setGrpcAddress("b:7410").build());

        assertThat(client.listSites(ListSitesRequest.getDefaultInstance()).getSitesList()).containsExactly(
                Site.newBuilder().setName("a").setGrpcAddress("a:7410").setVmMemoryBytes(8L << 30).setIntraSiteRttMicros(250).build(),
                Site.newBuilder().setName("b").setGrpcAddress("b:7410").setIntraSiteRttMicros(1000).build());
    }

    @Test
    void aSiteWritesAnImageAndAnotherReadsItBack() {
        client.registerSite(Site.newBuilder().setName("a").setGrpcAddress("a:7410").build());
        client.registerSite(Site.newBuilder().setName("b").setGrpcAddress("b:7410").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1L << 32).build());
        assertThat(client.listImages(ListImagesRequest.getDefaultInstance()).getImagesList())
                .singleElement().satisfies(image -> {
                    assertThat(image.getMode()).isEqualTo(PropagationMode.PROPAGATION_MODE_PROACTIVE);
                    assertThat(image.getBlockSize()).isEqualTo(4096);
                });

        List<OpenImageResponse> opened = open("a", OpenMode.OPEN_MODE_WRITE, 0);
        assertThat(opened).singleElement().satisfies(first -> {
            assertThat(first.getLease().getHolder()).isEqualTo("a");
            assertThat(first.getLease().getEpoch()).isEqualTo(1);
            assertThat(first.getConfig().getName()).isEqualTo("vm");
            assertThat(first.getMetaSeq()).isZero();
        });

        FlushResponse flushed = flush(1, message(0, ENTRIES / 2, 1), message(ENTRIES / 2, ENTRIES, 1));
        assertThat(flushed.getMetaSeq()).isEqualTo(1);
        assertThat(flushed.getBlocks()).isEqualTo(ENTRIES);
        assertThat(flushed.getLease().getHolder()).isEqualTo("a");

        List<OpenImageResponse> read = open("b", OpenMode.OPEN_MODE_READ, 0);
        assertThat(read).hasSize(3);
        assertThat(read.get(0).getSnapshot()).isFalse();
        assertThat(read.get(0).getLease().getHolder()).isEqualTo("a");
        List<Long> blocks = new ArrayList<>();
        for (OpenImageResponse message : read) {
            assertThat(message.getMetaSeq()).isEqualTo(1);
            BlockMetadata entries = message.getEntries();
            for (int i = 0; i < entries.getBlocksCount(); i++) {
                blocks.add(entries.getBlocks(i));
                assertThat(entries.getVersions(i)).isEqualTo(Version.compose(1, entries.getBlocks(i) % 7 + 1));
                assertThat(entries.getHolders(i) == 0 ? "zero" : entries.getSites(entries.getHolders(i) - 1))
                        .isEqualTo(entries.getBlocks(i) % 10 == 0 ? "zero" : "a");
            }
        }
        assertThat(blocks).hasSize(ENTRIES).isSorted().first().isEqualTo(0L);

        ImageStatus status = client.getImage(GetImageRequest.newBuilder().setName("vm").build());
        assertThat(status.getCurrentBlocksList()).containsExactly(SiteBlocks.newBuilder().setSite("a").setBlocks(ENTRIES - ENTRIES / 10).build());
        assertThat(status.getZeroBlocks()).isEqualTo(ENTRIES / 10);
        assertThat(status.getMetaSeq()).isEqualTo(1);
        ImageStatus compacted = client.compactImage(GetImageRequest.newBuilder().setName("vm").build());
        assertThat(compacted.getSnapshotSeq()).isEqualTo(1);
        assertThat(open("b", OpenMode.OPEN_MODE_READ, 0).get(0).getSnapshot()).isTrue();
    }

    @Test
    void aStaleLeaseArrivesAsFailedPreconditionWithItsCode() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);
        open("a", OpenMode.OPEN_MODE_WRITE, 0);

        CompletableFuture<FlushResponse> stale = flushAsync(header(1), message(0, 10, 1));

        assertThatThrownBy(() -> await(stale)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            HeliotropeException error = GrpcErrors.toException(e, "controller");
            assertThat(error.code()).isEqualTo(ErrorCode.STALE_LEASE);
            assertThat(error).hasMessage("image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site a");
        });
        Lease renewed = client.renewLease(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(2).build());
        assertThat(renewed.getHolder()).isEqualTo("a");
        assertThat(renewed.getImage()).isEqualTo("vm");
        Lease closed = client.closeImage(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(2).build());
        assertThat(closed.getHolder()).isEmpty();
        assertThat(closed.getEpoch()).isEqualTo(2);
        client.deleteImage(DeleteImageRequest.newBuilder().setName("vm").build());
        assertRefused(() -> call(() -> client.getImage(GetImageRequest.newBuilder().setName("vm").build())),
                ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
    }

    @Test
    void theHolderAdvancesItsEpochAndTheLeaseTellsItsGrant() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);

        Lease advanced = client.advanceEpoch(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(1).build());

        assertThat(advanced.getEpoch()).isEqualTo(2);
        assertThat(advanced.getGrantEpoch()).isEqualTo(1);
        assertThat(client.getLease(GetImageRequest.newBuilder().setName("vm").build())).isEqualTo(advanced);
        assertRefused(() -> call(() -> client.advanceEpoch(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(7).build())),
                ErrorCode.STALE_LEASE, "image 'vm': lease epoch 7 of site a is stale: fenced by epoch 2 at site a");
    }

    @Test
    void aHandoffMovesTheLeaseAndIsRolledBackOrBrokenThroughGrpc() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.registerSite(Site.newBuilder().setName("b").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);
        HandoffRequest handoff = HandoffRequest.newBuilder().setImage("vm").setFromSite("a").setToSite("b").build();

        Lease prepared = client.prepare(PrepareRequest.newBuilder().setImage("vm").setFromSite("a").setToSite("b").build());
        assertThat(prepared.getMovingTo()).isEqualTo("b");
        assertThat(prepared.getMovingExpiresEpochMillis()).isGreaterThan(prepared.getExpiresEpochMillis());
        Lease moved = await(flushAsync(header(1).toBuilder().setMoveTo("b").build(), message(0, 10, 1))).getLease();
        assertThat(moved.getHolder()).isEqualTo("b");
        assertThat(moved.getHandedFrom()).isEqualTo("a");

        Lease back = client.cancelHandoff(handoff);

        assertThat(back.getHolder()).isEqualTo("a");
        assertThat(back.getEpoch()).isEqualTo(3);
        assertThat(back.getHandedFrom()).isEmpty();
        assertRefused(() -> call(() -> client.completeHandoff(handoff)), ErrorCode.STALE_LEASE,
                "image 'vm': no handoff from a to b to complete: the lease is at site a (epoch 3)");
        assertRefused(() -> call(() -> client.breakLease(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(2).build())),
                ErrorCode.STALE_LEASE, "image 'vm': lease epoch 2 of site a is stale: fenced by epoch 3 at site a");
        Lease broken = client.breakLease(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(3).build());
        assertThat(broken.getExpiresEpochMillis()).isLessThanOrEqualTo(System.currentTimeMillis());
        assertThat(open("b", OpenMode.OPEN_MODE_WRITE, 0).get(0).getLease().getEpoch()).isEqualTo(4);
    }

    @Test
    void badRequestsAreInvalidArguments() {
        assertRefused(() -> call(() -> open("a", OpenMode.OPEN_MODE_UNSPECIFIED, 0)), ErrorCode.INVALID_ARGUMENT,
                "OpenImage needs mode OPEN_MODE_WRITE or OPEN_MODE_READ");
        assertRefused(() -> call(() -> await(flushAsync(null, FlushRequest.getDefaultInstance()))), ErrorCode.INVALID_ARGUMENT,
                "the first Flush message must carry the header");
        assertRefused(() -> call(() -> client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(100).build())),
                ErrorCode.INVALID_ARGUMENT, "invalid size 100 for image 'vm': must be a positive multiple of 4096 bytes, at most 1 PiB");
        FlushRequest mismatched = FlushRequest.newBuilder().setEntries(BlockMetadata.newBuilder().addBlocks(1).addSites("a").addHolders(1)).build();
        assertRefused(() -> call(() -> await(flushAsync(header(1), mismatched))), ErrorCode.INVALID_ARGUMENT,
                "block metadata columns differ in length: 1 blocks, 0 versions, 1 holders");
    }

    @Test
    void replicationSettingsAreCreatedChangedAndReturnedWithTheLearnedTable() {
        client.registerSite(Site.newBuilder().setName("virginia").build());
        client.registerSite(Site.newBuilder().setName("taiwan").build());
        TransitionTable hint = TransitionTable.newBuilder().addSites("virginia").addSites("taiwan")
                .addAllProbabilities(List.of(0.1, 0.9, 0.0, 0.0)).build();
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).setReplication(ReplicationSettings.newBuilder()
                .setMode(PropagationMode.PROPAGATION_MODE_ON_DEMAND).setHome("virginia").setKFactor(0.5).setTransitions(hint)).build());
        open("virginia", OpenMode.OPEN_MODE_WRITE, 0);
        client.closeImage(LeaseRequest.newBuilder().setImage("vm").setSite("virginia").setEpoch(1).build());

        ImageStatus set = client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setSRatio(2.5).setSyncCopies(2).setBandwidthBytesPerSecond(1 << 20).setBudgetBytesPerDay(1L << 30)).build());
        ImageConfig opened = open("taiwan", OpenMode.OPEN_MODE_WRITE, 0).get(0).getConfig();

        // Taiwan has no hint row and no move from it: the fleet's default row (DESIGN.md section 6), the one other
        // registered site, so that its pushes go where its VM can go; before #29 an empty row meant no pushes from taiwan.
        TransitionTable withDefault = hint.toBuilder().setProbabilities(2, 1.0).build();
        assertThat(set.getConfig()).isEqualTo(client.listImages(ListImagesRequest.getDefaultInstance()).getImages(0)
                .toBuilder().clearObservedMoves().setTransitions(withDefault).build());
        assertThat(set.getConfig().getTransitions()).isEqualTo(withDefault);
        assertThat(set.getConfig().getDefaultRowsList()).containsExactly("taiwan");
        assertThat(List.of(set.getConfig().getPull(), set.getConfig().getPulls())).as("on-demand does not pull unless set")
                .containsExactly(PullMode.PULL_MODE_UNSPECIFIED, false);
        assertThat(List.of(opened.getMode(), opened.getKFactor(), opened.getSRatio(), opened.getHome(), opened.getSyncCopies(),
                opened.getBandwidthBytesPerSecond(), opened.getBudgetBytesPerDay())).containsExactly(
                PropagationMode.PROPAGATION_MODE_ON_DEMAND, 0.5, 2.5, "virginia", 2, 1L << 20, 1L << 30);
        assertThat(opened.getTransitionHint()).isEqualTo(hint);
        assertThat(opened.getObservedMovesList()).containsExactly(
                TransitionCount.newBuilder().setFromSite("virginia").setToSite("taiwan").setMoves(1).build());
        assertThat(opened.getTransitions().getProbabilitiesList()).containsExactly(1 / 11.0, 10 / 11.0, 1.0, 0.0);
        assertThat(opened.getDefaultRowsList()).containsExactly("taiwan");
        ImageStatus pulled = client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setPull(PullMode.PULL_MODE_ON)).build());
        assertThat(List.of(pulled.getConfig().getPull(), pulled.getConfig().getPulls())).containsExactly(PullMode.PULL_MODE_ON, true);
        assertThat(client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setMode(PropagationMode.PROPAGATION_MODE_PROACTIVE).setPull(PullMode.PULL_MODE_UNSPECIFIED)).build()).getConfig().getPulls())
                .as("proactive pulls by default").isTrue();
        assertRefused(() -> call(() -> client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setMode(PropagationMode.PROPAGATION_MODE_REMOTE).setPull(PullMode.PULL_MODE_ON)).build())), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': a remote image keeps no copies away from its home, so it cannot be pulled: turn its pull off or choose another mode");
        assertRefused(() -> call(() -> client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setMode(PropagationMode.PROPAGATION_MODE_UNSPECIFIED)).build())), ErrorCode.INVALID_ARGUMENT,
                "unknown propagation mode PROPAGATION_MODE_UNSPECIFIED: use PROPAGATION_MODE_PROACTIVE, _ON_DEMAND, _SYNC or _REMOTE");
        assertRefused(() -> call(() -> client.setImage(SetImageRequest.newBuilder().setName("vm").setReplication(ReplicationSettings.newBuilder()
                .setTransitions(hint.toBuilder().setProbabilities(0, 0.5).setProbabilities(1, 0.4))).build())), ErrorCode.INVALID_ARGUMENT,
                "invalid transition table: the row of virginia sums to 0.9, not 1");
    }

    @Test
    void aWriteOpenWaitsForTheHoldersCloseWithinItsWait() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.registerSite(Site.newBuilder().setName("b").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);

        assertThatThrownBy(() -> call(() -> open("b", OpenMode.OPEN_MODE_WRITE, 0, 300)))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LEASE_HELD))
                .hasMessageStartingWith("image 'vm': write lease held by site a (epoch 1, ")
                .hasMessageEndingWith(" s left); waited 300 ms for its release");
        Iterator<OpenImageResponse> waiting = client.openImage(request("b", OpenMode.OPEN_MODE_WRITE, 0).toBuilder().setWaitMillis(60_000).build());
        client.closeImage(LeaseRequest.newBuilder().setImage("vm").setSite("a").setEpoch(1).build());

        assertThat(waiting.next().getLease().getHolder()).isEqualTo("b");
    }

    @Test
    void anAwaitAnswersTheMoveAsAReadOpenWouldAndInVainTheLeaseAsItIs() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.registerSite(Site.newBuilder().setName("b").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);
        long cached = flush(1, message(0, 10, 1)).getMetaSeq();
        client.prepare(PrepareRequest.newBuilder().setImage("vm").setFromSite("a").setToSite("b").build());

        Iterator<OpenImageResponse> awaiting = client.awaitHandoff(awaitRequest("b", cached, 60_000));
        Lease moved = await(flushAsync(header(1).toBuilder().setMoveTo("b").build(), message(10, 20, 1))).getLease();

        List<OpenImageResponse> handed = new ArrayList<>();
        awaiting.forEachRemaining(handed::add);
        assertThat(handed.get(0).getLease()).isEqualTo(moved);
        assertThat(handed).isEqualTo(open("b", OpenMode.OPEN_MODE_READ, cached));
        List<OpenImageResponse> inVain = new ArrayList<>();
        client.awaitHandoff(awaitRequest("a", cached, 100)).forEachRemaining(inVain::add);
        assertThat(inVain).containsExactly(handed.get(0).toBuilder().setMetaSeq(cached).clearEntries().build());
    }

    @Test
    void sitesReportRoundTripsAndTheMatrixHasEveryRow() {
        client.registerSite(Site.newBuilder().setName("a").build());
        client.registerSite(Site.newBuilder().setName("b").build());
        client.reportRtt(ReportRttRequest.newBuilder().setSite("a").addPeers(PeerRtt.newBuilder().setPeer("b").setRttMicros(75_000)).build());
        client.reportRtt(ReportRttRequest.newBuilder().setSite("b").addPeers(PeerRtt.newBuilder().setPeer("a").setRttMicros(80_000)).build());
        client.reportRtt(ReportRttRequest.newBuilder().setSite("a").addPeers(PeerRtt.newBuilder().setPeer("b").setRttMicros(74_000))
                .setProbePeriodMillis(10_000).build());

        RttMatrix matrix = client.getRttMatrix(GetRttMatrixRequest.getDefaultInstance());

        assertThat(matrix.getRowsList()).extracting(RttRow::getSite).containsExactly("a", "b");
        assertThat(matrix.getRowsList()).extracting(RttRow::getProbePeriodMillis).as("b did not say").containsExactly(10_000L, 0L);
        assertThat(matrix.getRows(0).getPeersList()).containsExactly(PeerRtt.newBuilder().setPeer("b").setRttMicros(74_000).build());
        assertThat(matrix.getRows(1).getMeasuredEpochMillis()).isPositive();
        assertRefused(() -> call(() -> client.reportRtt(ReportRttRequest.newBuilder().setSite("c").build())), ErrorCode.SITE_NOT_FOUND,
                "site 'c' is not registered");
        assertRefused(() -> call(() -> client.reportRtt(ReportRttRequest.newBuilder().setSite("a")
                .addPeers(PeerRtt.newBuilder().setPeer("b")).addPeers(PeerRtt.newBuilder().setPeer("b")).build())), ErrorCode.INVALID_ARGUMENT,
                "site a reports peer b twice");
    }

    @Test
    void theClusterStatusAndLocalityComeOverGrpcWithTheirErrorsMapped() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        client.registerSite(Site.newBuilder().setName("a").setGrpcAddress("127.0.0.1:" + closed).build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);
        flush(1, message(0, 64, 1));

        ClusterStatus status = client.getClusterStatus(GetClusterStatusRequest.newBuilder().setImage("vm").build());
        ImageLocality locality = client.getImageLocality(GetImageLocalityRequest.newBuilder().setImage("vm").setRegions(4).build());

        assertThat(status.getSitesList()).singleElement().satisfies(site -> {
            assertThat(site.getSite().getName()).isEqualTo("a");
            assertThat(site.getUp()).isFalse();
        });
        assertThat(status.getImagesList()).singleElement().satisfies(image -> assertThat(image.getStatus().getLease().getHolder()).isEqualTo("a"));
        assertThat(locality.getHoldersList()).containsExactly(1, 0, 0, 0);
        assertThat(locality.getShares(0)).isEqualTo(57 / 64f);
        assertRefused(() -> call(() -> client.getClusterStatus(GetClusterStatusRequest.newBuilder().setImage("nope").build())),
                ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
        assertRefused(() -> call(() -> client.getImageLocality(GetImageLocalityRequest.newBuilder().setImage("vm").setRegions(5000).build())),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': the locality map has 1 to 4096 regions (0 for 256), not 5000");
        assertThat(server.clusterView().status("").getImagesCount()).isEqualTo(1);
        assertThat(server.metrics().scrape())
                .contains("heliotrope_controller_opens_total{mode=\"write\",outcome=\"ok\"} 1")
                .contains("heliotrope_controller_zookeeper_latency_seconds_count{op=\"commit\"}");
    }

    @Test
    void theStatusPortServesTheClusterViewAsJsonAndTheMetrics() throws Exception {
        client.registerSite(Site.newBuilder().setName("a").setGrpcAddress("127.0.0.1:1").build());
        client.createImage(CreateImageRequest.newBuilder().setName("vm").setSizeBytes(1 << 20).build());
        open("a", OpenMode.OPEN_MODE_WRITE, 0);
        flush(1, message(0, 64, 1));
        HttpClient http = HttpClient.newHttpClient();
        Function<String, HttpResponse<String>> get = path -> {
            try {
                return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.statusPort() + path)).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(e);
            }
        };

        ClusterStatus.Builder status = ClusterStatus.newBuilder();
        JsonFormat.parser().merge(get.apply("/api/status?image=vm").body(), status);
        assertThat(status.getImagesList()).singleElement().satisfies(image -> assertThat(image.getStatus().getLease().getHolder()).isEqualTo("a"));
        ImageLocality.Builder locality = ImageLocality.newBuilder();
        JsonFormat.parser().merge(get.apply("/api/locality?image=vm&regions=4").body(), locality);
        assertThat(locality.getHoldersList()).containsExactly(1, 0, 0, 0);
        assertThat(get.apply("/api/status?image=nope").statusCode()).isEqualTo(404);
        assertThat(get.apply("/metrics").body()).contains("heliotrope_controller_opens_total{mode=\"write\",outcome=\"ok\"} 1");
        assertThat(get.apply("/").body()).contains("<title>Heliotrope status</title>");
    }

    @Test
    void anUnreachableZooKeeperIsReportedClearly() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ControllerConfig config = new ControllerConfig("127.0.0.1:" + port, null, 0, 0, null, Duration.ofSeconds(1), null);

        assertRefused(() -> ControllerServer.start(config), ErrorCode.PEER_UNAVAILABLE,
                "cannot reach ZooKeeper at 127.0.0.1:" + port + " within 1000 ms");
    }

    private List<OpenImageResponse> open(String site, OpenMode mode, long cachedMetaSeq) {
        return open(site, mode, cachedMetaSeq, 0);
    }

    private List<OpenImageResponse> open(String site, OpenMode mode, long cachedMetaSeq, long waitMillis) {
        List<OpenImageResponse> messages = new ArrayList<>();
        client.openImage(request(site, mode, cachedMetaSeq).toBuilder().setWaitMillis(waitMillis).build()).forEachRemaining(messages::add);
        return messages;
    }

    private static OpenImageRequest request(String site, OpenMode mode, long cachedMetaSeq) {
        return OpenImageRequest.newBuilder().setImage("vm").setSite(site).setMode(mode).setCachedMetaSeq(cachedMetaSeq).build();
    }

    private static AwaitHandoffRequest awaitRequest(String site, long cachedMetaSeq, long waitMillis) {
        return AwaitHandoffRequest.newBuilder().setImage("vm").setSite(site).setCachedMetaSeq(cachedMetaSeq).setWaitMillis(waitMillis).build();
    }

    /** Blocks from..to of site "a" (every tenth a zero marker), as one Flush message. */
    private static FlushRequest message(int from, int to, long epoch) {
        BlockMetadata.Builder entries = BlockMetadata.newBuilder().addSites("a");
        for (int block = from; block < to; block++) {
            entries.addBlocks(block).addVersions(Version.compose(epoch, block % 7 + 1)).addHolders(block % 10 == 0 ? 0 : 1);
        }
        return FlushRequest.newBuilder().setEntries(entries).build();
    }

    private FlushResponse flush(long epoch, FlushRequest... messages) {
        return await(flushAsync(header(epoch), messages));
    }

    private static FlushHeader header(long epoch) {
        return FlushHeader.newBuilder().setImage("vm").setSite("a").setEpoch(epoch).build();
    }

    /** Sends the header (if any) with the first message, then the rest. */
    private CompletableFuture<FlushResponse> flushAsync(FlushHeader header, FlushRequest... messages) {
        ResponseFuture<FlushResponse> response = new ResponseFuture<>();
        StreamObserver<FlushRequest> requests = ControllerServiceGrpc.newStub(channel).flush(response);
        for (int i = 0; i < messages.length; i++) {
            requests.onNext(i == 0 && header != null ? messages[i].toBuilder().setHeader(header).build() : messages[i]);
        }
        requests.onCompleted();
        return response;
    }

    /** Runs a gRPC call, turning its failure into the error the server raised. */
    private static void call(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            throw GrpcErrors.toException(e, "controller");
        }
    }
}
