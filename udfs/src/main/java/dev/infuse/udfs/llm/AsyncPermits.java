package dev.infuse.udfs.llm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A semaphore that never blocks: a task that finds no free permit waits in a FIFO queue and is run
 * (on {@code dispatcher}) when one frees up. Callers can submit thousands of requests at once
 * without tying up a thread per waiting request.
 */
final class AsyncPermits {
  private final int permits;
  private final Executor dispatcher;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private int held;

  AsyncPermits(int permits, Executor dispatcher) {
    if (permits < 1) {
      throw new IllegalArgumentException("permits must be at least 1, got " + permits);
    }
    this.permits = permits;
    this.dispatcher = dispatcher;
  }

  /** Runs {@code task} holding a permit: now, on this thread, or later on the dispatcher. */
  void submit(Runnable task) {
    synchronized (this) {
      if (held >= permits) {
        waiting.add(task);
        return;
      }
      held++;
    }
    task.run();
  }

  /** Returns a permit, handing it straight to the longest-waiting task if there is one. */
  void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        if (held == 0) {
          throw new IllegalStateException("release without a held permit");
        }
        held--;
        return;
      }
    }
    try {
      dispatcher.execute(next);
    } catch (RejectedExecutionException e) {
      // The owner has shut down: the task will never run, and the owner fails what it was for.
      synchronized (this) {
        held--;
      }
    }
  }

  synchronized int held() {
    return held;
  }

  synchronized int waiting() {
    return waiting.size();
  }

  /** Removes and returns the waiting tasks, which will never run. */
  synchronized List<Runnable> drain() {
    List<Runnable> drained = new ArrayList<>(waiting);
    waiting.clear();
    return drained;
  }
}
