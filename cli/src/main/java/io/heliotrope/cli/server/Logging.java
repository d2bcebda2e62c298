package io.heliotrope.cli.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.spi.FilterReply;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a helio process logs. Admin commands show warnings on the console (stderr) and
 * nothing else. Servers show our events from INFO and the libraries' (ZooKeeper, Curator,
 * gRPC, Netty) from WARN on the console, and write everything to a log file, rotated by
 * size. Libraries that log through java.util.logging (gRPC) go the same way.
 */
public final class Logging {
    /** The loggers whose INFO events a user of the console acts on: ours. */
    private static final String OURS = "io.heliotrope";
    private static final long MAX_FILE_BYTES = 50L << 20;
    /** Rotated files kept beside the current one: at most 250 MiB of logs in all. */
    private static final int KEPT_FILES = 4;
    /** How often the file's size is looked at (a stat): logback's default, 60 s, lets a burst of events run far past the limit. */
    private static final Duration SIZE_CHECK_INTERVAL = Duration.buildByMilliseconds(100);
    private static final String CONSOLE_PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";
    private static final String FILE_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger - %msg%n";

    private Logging() {}

    /** Warnings and errors of every logger on the console; for commands that run and exit. */
    public static void console() {
        LoggerContext context = reset();
        root(context).setLevel(Level.WARN);
        root(context).addAppender(console(context, null));
    }

    /**
     * Our events from INFO and everyone else's from WARN on the console; every event from
     * INFO (ours from DEBUG) in {@code file}, which rolls over at 50 MiB.
     */
    public static void consoleAndFile(Path file) {
        consoleAndFile(file, MAX_FILE_BYTES);
    }

    public static void consoleAndFile(Path file, long maxFileBytes) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot create the log directory for " + file + ": " + e.getMessage(), e);
        }
        LoggerContext context = reset();
        root(context).setLevel(Level.INFO);
        context.getLogger(OURS).setLevel(Level.DEBUG);
        root(context).addAppender(console(context, new ConsoleThreshold()));
        root(context).addAppender(rollingFile(context, file, maxFileBytes));
    }

    /**
     * An empty configuration, with java.util.logging sent to SLF4J at the levels set here
     * (the propagator keeps JUL from formatting events that would be dropped).
     */
    private static LoggerContext reset() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        LevelChangePropagator propagator = new LevelChangePropagator();
        propagator.setContext(context);
        propagator.setResetJUL(true);
        propagator.start();
        context.addListener(propagator);
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        return context;
    }

    private static Logger root(LoggerContext context) {
        return context.getLogger(Logger.ROOT_LOGGER_NAME);
    }

    private static ConsoleAppender<ILoggingEvent> console(LoggerContext context, Filter<ILoggingEvent> filter) {
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setTarget("System.err");
        console.setEncoder(encoder(context, CONSOLE_PATTERN));
        if (filter != null) {
            filter.setContext(context);
            filter.start();
            console.addFilter(filter);
        }
        console.start();
        return console;
    }

    private static RollingFileAppender<ILoggingEvent> rollingFile(LoggerContext context, Path file, long maxFileBytes) {
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setContext(context);
        appender.setName("file");
        appender.setFile(file.toString());
        appender.setEncoder(encoder(context, FILE_PATTERN));

        FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
        rolling.setContext(context);
        rolling.setParent(appender);
        rolling.setFileNamePattern(file + ".%i");
        rolling.setMinIndex(1);
        rolling.setMaxIndex(KEPT_FILES);
        rolling.start();
        appender.setRollingPolicy(rolling);

        SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
        trigger.setContext(context);
        trigger.setMaxFileSize(new FileSize(maxFileBytes));
        trigger.setCheckIncrement(SIZE_CHECK_INTERVAL);
        trigger.start();
        appender.setTriggeringPolicy(trigger);

        appender.start();
        return appender;
    }

    private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        return encoder;
    }

    /** Lets our events through from INFO and the libraries' from WARN. */
    static final class ConsoleThreshold extends Filter<ILoggingEvent> {
        @Override
        public FilterReply decide(ILoggingEvent event) {
            String logger = event.getLoggerName();
            boolean ours = logger.equals(OURS) || logger.startsWith(OURS + ".");
            return event.getLevel().isGreaterOrEqual(ours ? Level.INFO : Level.WARN) ? FilterReply.NEUTRAL : FilterReply.DENY;
        }
    }
}
