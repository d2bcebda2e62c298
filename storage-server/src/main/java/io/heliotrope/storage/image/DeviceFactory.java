package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.view.DataView;

/**
 * The data path of each open image: a data view that its connections share, and a device
 * for each connection. A replication mode (DESIGN.md section 6) chooses its own, as a
 * decorator of the default one.
 */
public interface DeviceFactory {
    /**
     * Made when the image opens, for all its connections.
     *
     * @param dirty whether the session's writes join the dirty set
     */
    DataView view(ImageSession session, Dirty dirty);

    /** The device of one connection to {@code image}; closing it runs {@code onClose}. */
    BlockDevice device(OpenImage image, Runnable onClose);
}
