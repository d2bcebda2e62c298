package io.heliotrope.storage.peer.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.CollectRequest;
import io.heliotrope.proto.storage.v1.CollectResponse;
import io.heliotrope.proto.storage.v1.CopyState;
import io.heliotrope.proto.storage.v1.FetchRequest;
import io.heliotrope.proto.storage.v1.FenceRequest;
import io.heliotrope.proto.storage.v1.FetchResponse;
import io.heliotrope.proto.storage.v1.HeatRequest;
import io.heliotrope.proto.storage.v1.HeatResponse;
import io.heliotrope.proto.storage.v1.PeerImage;
import io.heliotrope.proto.storage.v1.PushRequest;
import io.heliotrope.proto.storage.v1.PushResponse;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * Conversions between {@code peer_service.proto} and the domain. What a peer sends is checked
 * here: a malformed request is {@code INVALID_ARGUMENT}, a malformed answer {@code STORAGE_FAILURE}.
 */
final class PeerProtos {
    /**
     * The most blocks a request may name: 4 MiB of data. A fetch of a million blocks fits in
     * one 4 MiB message of block numbers, and its answer would not fit in memory.
     */
    static final int MAX_BATCH = 1024;

    private PeerProtos() {}

    /** A fetch of these blocks; {@code background} for a background pull's batch. */
    static FetchRequest fetchRequest(ImageRef image, List<Wanted> wanted, boolean background) {
        FetchRequest.Builder request = FetchRequest.newBuilder().setImage(toProto(image)).setBackground(background);
        for (Wanted block : wanted) {
            request.addBlocks(block.block()).addVersions(block.version());
        }
        return request.build();
    }

    static ImageRef image(PeerImage image) {
        if (image.getIdentity().isEmpty()) {
            return new ImageRef(null, image.getName(), image.getSizeBytes());
        }
        try {
            return new ImageRef(UUID.fromString(image.getIdentity()), image.getName(), image.getSizeBytes());
        } catch (IllegalArgumentException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image " + image.getName() + ": identity " + image.getIdentity() + " is not a uuid");
        }
    }

    static List<Wanted> wanted(FetchRequest request) {
        checkColumns(request.getBlocksCount(), request.getVersionsCount(), "versions");
        List<Wanted> wanted = new ArrayList<>(request.getBlocksCount());
        for (int i = 0; i < request.getBlocksCount(); i++) {
            wanted.add(new Wanted(request.getBlocks(i), request.getVersions(i)));
        }
        return wanted;
    }

    /**
     * The answer to the blocks {@code wanted}, given the copies found (a subsequence of them, in
     * their order). The copies' data is sent without a copy: it must not change until sent.
     */
    static FetchResponse fetchResponse(List<Wanted> wanted, List<Copy> copies) {
        FetchResponse.Builder response = FetchResponse.newBuilder();
        int next = 0;
        for (Wanted block : wanted) {
            Copy copy = next < copies.size() ? copies.get(next) : null;
            if (copy == null || copy.block() != block.block() || copy.version() != block.version()) {
                response.addStates(CopyState.COPY_STATE_NOT_HERE);
                continue;
            }
            next++;
            if (copy.zero()) {
                response.addStates(CopyState.COPY_STATE_ZERO);
            } else {
                response.addStates(CopyState.COPY_STATE_DATA).addData(UnsafeByteOperations.unsafeWrap(copy.data()));
            }
        }
        return response.build();
    }

    /** The copies in {@code site}'s answer to the blocks {@code wanted}, in their order. */
    static List<Copy> copies(List<Wanted> wanted, FetchResponse response, String site) {
        if (response.getStatesCount() != wanted.size()) {
            throw badAnswer(site, "states for " + response.getStatesCount() + " of " + wanted.size() + " blocks");
        }
        List<Copy> copies = new ArrayList<>(response.getDataCount());
        int data = 0;
        for (int i = 0; i < wanted.size(); i++) {
            Wanted block = wanted.get(i);
            CopyState state = response.getStates(i);
            if (state == CopyState.COPY_STATE_ZERO) {
                copies.add(new Copy(block.block(), block.version(), null));
            } else if (state == CopyState.COPY_STATE_DATA) {
                if (data == response.getDataCount() || response.getData(data).size() != BLOCK_SIZE) {
                    throw badAnswer(site, "no " + BLOCK_SIZE + " bytes for block " + block.block());
                }
                copies.add(new Copy(block.block(), block.version(), response.getData(data++).asReadOnlyByteBuffer()));
            }
        }
        return copies;
    }

    static PushRequest pushRequest(ImageRef image, List<Copy> copies) {
        PushRequest.Builder request = PushRequest.newBuilder().setImage(toProto(image));
        for (Copy copy : copies) {
            request.addBlocks(copy.block()).addVersions(copy.version())
                    .addData(copy.zero() ? ByteString.EMPTY : ByteString.copyFrom(copy.data().duplicate()));
        }
        return request.build();
    }

    static List<Copy> copies(PushRequest request) {
        checkColumns(request.getBlocksCount(), request.getVersionsCount(), "versions");
        checkColumns(request.getBlocksCount(), request.getDataCount(), "data");
        List<Copy> copies = new ArrayList<>(request.getBlocksCount());
        for (int i = 0; i < request.getBlocksCount(); i++) {
            ByteString data = request.getData(i);
            if (!data.isEmpty() && data.size() != BLOCK_SIZE) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                        "block " + request.getBlocks(i) + ": a pushed copy holds " + BLOCK_SIZE + " bytes or none, not " + data.size());
            }
            copies.add(new Copy(request.getBlocks(i), request.getVersions(i), data.isEmpty() ? null : data.asReadOnlyByteBuffer()));
        }
        return copies;
    }

    static PushResponse pushResponse(boolean[] stored) {
        PushResponse.Builder response = PushResponse.newBuilder();
        for (boolean copy : stored) {
            response.addStored(copy);
        }
        return response.build();
    }

    /** Per copy pushed, whether {@code site} stored it. */
    static boolean[] stored(PushResponse response, int copies, String site) {
        if (response.getStoredCount() != copies) {
            throw badAnswer(site, "an answer for " + response.getStoredCount() + " of " + copies + " copies pushed");
        }
        boolean[] stored = new boolean[copies];
        for (int i = 0; i < copies; i++) {
            stored[i] = response.getStored(i);
        }
        return stored;
    }

    static FenceRequest fenceRequest(ImageRef image, long belowEpoch) {
        return FenceRequest.newBuilder().setImage(toProto(image)).setBelowEpoch(belowEpoch).build();
    }

    static CollectRequest collectRequest(ImageRef image, long firstEpoch, long lastEpoch) {
        return CollectRequest.newBuilder().setImage(toProto(image)).setFirstEpoch(firstEpoch).setLastEpoch(lastEpoch).build();
    }

    /** The blocks found, {@code batch} to a response. */
    static List<CollectResponse> collectResponses(List<BlockVersion> blocks, int batch) {
        List<CollectResponse> responses = new ArrayList<>();
        for (int from = 0; from < blocks.size(); from += batch) {
            CollectResponse.Builder response = CollectResponse.newBuilder();
            for (BlockVersion block : blocks.subList(from, Math.min(blocks.size(), from + batch))) {
                response.addBlocks(block.block()).addVersions(block.version()).addZero(block.state() == BlockState.ZERO);
            }
            responses.add(response.build());
        }
        return responses;
    }

    /** Adds the blocks of {@code site}'s answer to {@code blocks}. */
    static void addCollected(CollectResponse response, List<BlockVersion> blocks, String site) {
        if (response.getVersionsCount() != response.getBlocksCount() || response.getZeroCount() != response.getBlocksCount()) {
            throw badAnswer(site, "a collected batch of " + response.getBlocksCount() + " blocks with " + response.getVersionsCount()
                    + " versions and " + response.getZeroCount() + " states");
        }
        for (int i = 0; i < response.getBlocksCount(); i++) {
            blocks.add(new BlockVersion(response.getBlocks(i), response.getVersions(i), response.getZero(i) ? BlockState.ZERO : BlockState.DATA));
        }
    }

    static HeatRequest heatRequest(ImageRef image, String askingSite, long holderEpoch, int maxBlocks) {
        return HeatRequest.newBuilder().setImage(toProto(image)).setAskingSite(askingSite).setHolderEpoch(holderEpoch).setMaxBlocks(maxBlocks).build();
    }

    /** The heat in messages of {@code batch} blocks at most; no heat is one message with epoch 0 and no blocks. */
    static List<HeatResponse> heatResponses(Recorded heat, int batch) {
        List<HeatResponse> responses = new ArrayList<>();
        long[] blocks = heat.blocks();
        int from = 0;
        do {
            int to = Math.min(blocks.length, from + batch);
            HeatResponse.Builder response = HeatResponse.newBuilder().setEpoch(heat.epoch());
            for (int i = from; i < to; i++) {
                response.addBlocks(blocks[i]);
            }
            responses.add(response.build());
            from = to;
        } while (from < blocks.length);
        return responses;
    }

    /** {@code site}'s heat from its messages, in their order: at most {@code maxBlocks} blocks. */
    static Heat heat(String site, List<HeatResponse> responses, int maxBlocks) {
        long epoch = responses.isEmpty() ? 0 : responses.get(0).getEpoch();
        long[] blocks = new long[responses.stream().mapToInt(HeatResponse::getBlocksCount).sum()];
        int size = 0;
        for (HeatResponse response : responses) {
            if (response.getEpoch() != epoch) {
                throw badAnswer(site, "heat of epochs " + epoch + " and " + response.getEpoch() + " in one answer");
            }
            for (int i = 0; i < response.getBlocksCount(); i++) {
                blocks[size++] = response.getBlocks(i);
            }
        }
        return new Heat(site, epoch, size > maxBlocks ? Arrays.copyOf(blocks, maxBlocks) : blocks);
    }

    private static PeerImage toProto(ImageRef image) {
        return PeerImage.newBuilder()
                .setIdentity(image.identity() == null ? "" : image.identity().toString())
                .setName(image.name())
                .setSizeBytes(image.sizeBytes())
                .build();
    }

    private static void checkColumns(int blocks, int column, String name) {
        if (blocks > MAX_BATCH) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a batch names " + blocks + " blocks, more than " + MAX_BATCH);
        }
        if (column != blocks) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a batch of " + blocks + " blocks has " + column + " " + name);
        }
    }

    private static HeliotropeException badAnswer(String site, String what) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "site " + site + " answered with " + what);
    }
}
