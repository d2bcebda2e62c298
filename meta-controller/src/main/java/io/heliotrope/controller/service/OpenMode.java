package io.heliotrope.controller.service;

/** How a site opens an image: for writing, with the lease, or for reading, shared and without one. */
public enum OpenMode {
    WRITE,
    READ
}
