package dev.infuse.udfs.lm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a busy Spark driver does to native memory (netty and Spark allocate and free direct buffers
 * all the time), on a thread of its own: it fills fresh direct buffers with NaN bytes, drops them
 * and collects garbage, so that memory freed under a live tensor is soon handed out and
 * overwritten. Training or an update run beside it must give exactly what a quiet run gives.
 */
public final class DirectMemoryRecycler implements AutoCloseable {
  private final Thread thread;
  private volatile boolean stopped;

  private DirectMemoryRecycler() {
    thread = new Thread(this::recycle, "direct-memory-recycler");
    thread.setDaemon(true);
  }

  public static DirectMemoryRecycler start() {
    DirectMemoryRecycler recycler = new DirectMemoryRecycler();
    recycler.thread.start();
    return recycler;
  }

  private void recycle() {
    SplittableRandom random = new SplittableRandom(7);
    List<ByteBuffer> live = new ArrayList<>();
    for (long n = 1; !stopped; n++) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(4 << random.nextInt(12));
      while (buffer.hasRemaining()) {
        buffer.put((byte) 0xFF);
      }
      live.add(buffer);
      if (live.size() > 64) {
        live.remove(random.nextInt(live.size()));
      }
      if (n % 200 == 0) {
        System.gc();
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    thread.join();
  }
}
