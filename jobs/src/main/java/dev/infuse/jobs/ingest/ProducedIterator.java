package dev.infuse.jobs.ingest;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import org.apache.spark.TaskContext;

/**
 * Turns a producer that pushes items (a reader calling its sink) into an iterator that Spark pulls,
 * with at most {@value #CAPACITY} items in between: the producer runs on its own thread, so the
 * items of a file never have to be held all at once. The producer's exception is rethrown to the
 * consumer; when the Spark task ends early (failure, kill, a limit), the producer is interrupted.
 */
final class ProducedIterator<T> implements Iterator<T> {
  private static final int CAPACITY = 4096;
  private static final Object END = new Object();

  /** A producer's failure, passed through the queue. */
  private record Failure(Throwable cause) {}

  /** Thrown into a producer whose consumer has gone, to unwind it. */
  private static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super(null, null, false, false);
    }
  }

  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
  private Object next;
  private boolean done;

  private ProducedIterator() {}

  /** Starts {@code producer} on a thread named {@code name} and returns what it produces. */
  static <T> Iterator<T> start(String name, Consumer<Consumer<T>> producer) {
    ProducedIterator<T> iterator = new ProducedIterator<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                producer.accept(iterator::put);
                iterator.putQuietly(END);
              } catch (Stopped stopped) {
                // The consumer is gone; nothing is waiting for the rest.
              } catch (Throwable t) {
                iterator.putQuietly(new Failure(t));
              }
            },
            name);
    thread.setDaemon(true);
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener(
          (org.apache.spark.util.TaskCompletionListener) context -> thread.interrupt());
    }
    thread.start();
    return iterator;
  }

  private void put(Object item) {
    try {
      queue.put(item);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopped();
    }
  }

  private void putQuietly(Object item) {
    try {
      queue.put(item);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean hasNext() {
    if (done) {
      return false;
    }
    if (next == null) {
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the reader", e);
      }
    }
    if (next == END) {
      done = true;
      return false;
    }
    if (next instanceof Failure failure) {
      done = true;
      Throwable cause = failure.cause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    }
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    T item = (T) next;
    next = null;
    return item;
  }
}
