package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AsyncPermitsTest {
  @Test
  void runsUpToThePermitsAndQueuesTheRestInOrder() {
    List<Runnable> dispatched = new ArrayList<>();
    AsyncPermits permits = new AsyncPermits(2, dispatched::add);
    List<Integer> ran = new ArrayList<>();

    for (int i = 0; i < 5; i++) {
      int task = i;
      permits.submit(() -> ran.add(task));
    }
    assertThat(ran).containsExactly(0, 1);
    assertThat(permits.held()).isEqualTo(2);
    assertThat(permits.waiting()).isEqualTo(3);

    permits.release();
    permits.release();
    dispatched.forEach(Runnable::run);
    assertThat(ran).containsExactly(0, 1, 2, 3);
    assertThat(permits.held()).isEqualTo(2);
    assertThat(permits.waiting()).isEqualTo(1);

    assertThat(permits.drain()).hasSize(1);
    permits.release();
    permits.release();
    assertThat(permits.held()).isZero();
    assertThatThrownBy(permits::release).isInstanceOf(IllegalStateException.class);
  }
}
