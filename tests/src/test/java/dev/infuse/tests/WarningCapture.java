package dev.infuse.tests;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * Collects the WARN and ERROR lines a user would see. The tests JVM logs through {@code
 * infuse-log4j2.properties} (the tests pom sets it), the same file {@code bin/infuse} uses. The
 * appender hangs off the root logger beside the console: every logger the file configures keeps its
 * additivity, so an event reaches both only if it passed its logger's level, and the capture holds
 * exactly what the console prints.
 *
 * <p>The shared test session calls {@code setLogLevel("ERROR")}, which would hide every WARN from
 * the capture, so {@link #begin()} first reloads the file: while capturing, every level is the
 * user's. {@link #close()} puts the quiet root level back.
 */
final class WarningCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();
  private final LoggerContext context;
  private final Level rootLevelBefore;

  private WarningCapture(LoggerContext context, Level rootLevelBefore) {
    super("infuse-warning-capture", null, null, true, Property.EMPTY_ARRAY);
    this.context = context;
    this.rootLevelBefore = rootLevelBefore;
  }

  /** Starts capturing; close it to stop. */
  static WarningCapture begin() {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    WarningCapture capture = new WarningCapture(context, context.getRootLogger().getLevel());
    context.reconfigure();
    capture.start();
    context.getConfiguration().getRootLogger().addAppender(capture, Level.WARN, null);
    context.updateLoggers();
    return capture;
  }

  /** The captured lines, as {@code LEVEL logger: message}. */
  synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public synchronized void append(LogEvent event) {
    lines.add(
        event.getLevel()
            + " "
            + event.getLoggerName()
            + ": "
            + event.getMessage().getFormattedMessage());
  }

  @Override
  public void close() {
    context.getConfiguration().getRootLogger().removeAppender(getName());
    context.getConfiguration().getRootLogger().setLevel(rootLevelBefore);
    context.updateLoggers();
    stop();
  }
}
