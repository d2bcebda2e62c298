package io.heliotrope.cli;

/** Where an import creates its image, and removes it again should the import fail: the controller's catalog, or a standalone site. */
interface ImageCatalog {
    void createImage(String name, long sizeBytes);

    void removeImage(String name);
}
