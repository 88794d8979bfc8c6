package dev.infuse.udfs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.Device;
import ai.djl.util.cuda.CudaUtils;
import org.junit.jupiter.api.Test;

class DevicesTest {
  @Test
  void cpuIsCpuEverywhere() {
    assertThat(Devices.resolve("cpu", "OnnxRuntime")).isEqualTo(Device.cpu());
    assertThat(Devices.resolve(" CPU ", "PyTorch")).isEqualTo(Device.cpu());
  }

  @Test
  void onAHostWithoutGpusAutoIsTheCpuAndAGpuIsRefusedWithTheCount() {
    assumeTrue(CudaUtils.getGpuCount() == 0, "this check is for CPU hosts");
    assertThat(Devices.resolve("auto", "OnnxRuntime")).isEqualTo(Device.cpu());
    assertThat(Devices.resolve(null, "PyTorch")).isEqualTo(Device.cpu());
    assertThatThrownBy(() -> Devices.resolve("gpu:1", "PyTorch"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "device gpu:1: this machine has 0 GPU(s); use auto or cpu, or deploy a CUDA build of"
                + " the native library (docs/DJL.md)");
  }

  @Test
  void badFormsAreNamed() {
    assertThat(Devices.problem("gpu:0")).isNull();
    assertThat(Devices.problem("auto")).isNull();
    assertThat(Devices.problem("tpu")).isEqualTo("device tpu: expected auto, cpu, gpu or gpu:N");
    assertThat(Devices.problem("gpu:-1"))
        .isEqualTo("device gpu:-1: expected auto, cpu, gpu or gpu:N with N >= 0");
    assertThatThrownBy(() -> Devices.resolve("tpu", "PyTorch"))
        .hasMessage("device tpu: expected auto, cpu, gpu or gpu:N");
  }
}
