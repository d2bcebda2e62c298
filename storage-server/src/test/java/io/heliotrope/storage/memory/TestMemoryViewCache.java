package io.heliotrope.storage.memory;

import io.heliotrope.storage.view.AbstractTestViewCache;
import io.heliotrope.storage.view.ViewCache;

class TestMemoryViewCache extends AbstractTestViewCache<MemoryBlockStore> {
    @Override
    protected MemoryBlockStore createStore() {
        return new MemoryBlockStore();
    }

    @Override
    protected ViewCache viewOf(MemoryBlockStore store) {
        return store.view();
    }
}
