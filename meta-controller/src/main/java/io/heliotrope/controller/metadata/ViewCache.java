package io.heliotrope.controller.metadata;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The most recently used materialized views, a few images' worth. */
final class ViewCache {
    private final Map<String, ImageView> views;

    ViewCache(int capacity) {
        this.views = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ImageView> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized Optional<ImageView> get(String image, long incarnation) {
        return Optional.ofNullable(views.get(image)).filter(view -> view.incarnation() == incarnation);
    }

    /** Keeps the view unless one of the same image at a later metaSeq is there already. */
    synchronized void put(String image, ImageView view) {
        ImageView current = views.get(image);
        if (current == null || current.incarnation() != view.incarnation() || current.metaSeq() < view.metaSeq()) {
            views.put(image, view);
        }
    }

    synchronized void remove(String image) {
        views.remove(image);
    }
}
