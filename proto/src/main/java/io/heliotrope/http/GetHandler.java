package io.heliotrope.http;

import java.io.IOException;

/** Answers the GET requests of one path of a {@link GetServer}. */
@FunctionalInterface
public interface GetHandler {
    Reply handle(GetRequest request) throws IOException;
}
