package io.heliotrope.scheduler.spi;

/** The registered sites, numbered {@code 0..count()-1} in the order of their names. */
public interface Sites {
    int count();

    String name(int site);

    /** The site's number, or {@code -1} when no site has that name. */
    int indexOf(String name);
}
