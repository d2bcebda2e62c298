package io.heliotrope.storage.memory;

import io.heliotrope.storage.AbstractTestBlockStore;
import io.heliotrope.storage.BlockStore;

class TestMemoryBlockStore extends AbstractTestBlockStore {
    @Override
    protected BlockStore createStore() {
        return new MemoryBlockStore();
    }
}
