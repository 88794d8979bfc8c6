package dev.infuse.udfs.model;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.util.cuda.CudaUtils;
import java.util.Locale;

/**
 * Turns the {@code device} option into a DJL {@link Device}. {@code auto} picks the first GPU the
 * engine sees on this JVM and can use (so the same job runs on GPU executors and on a CPU laptop),
 * {@code cpu} forces the CPU, {@code gpu} or {@code gpu:N} demands a GPU and fails clearly where
 * there is none.
 */
public final class Devices {
  /** The accepted forms, for error messages and docs. */
  public static final String FORMS = "auto, cpu, gpu or gpu:N";

  private Devices() {}

  /** Resolves {@code option} against {@code engineName}'s view of this machine. */
  public static Device resolve(String option, String engineName) {
    String value = option == null ? "auto" : option.trim().toLowerCase(Locale.ROOT);
    if (value.equals("cpu")) {
      return Device.cpu();
    }
    Engine engine = Engine.getEngine(engineName);
    // The machine's GPU count, not the engine's: Engine.getGpuCount asks the engine about CUDA
    // first, and ONNX Runtime answers that on a CPU host with a warning ("CUDA is not supported")
    // on every load, which its user cannot act on. With no GPU there is nothing to ask.
    int gpus = CudaUtils.getGpuCount();
    if (value.equals("auto")) {
      return gpus > 0 && isCudaBuild(engine) ? Device.gpu(0) : Device.cpu();
    }
    if (value.equals("gpu") || value.startsWith("gpu:")) {
      int index = value.equals("gpu") ? 0 : parseIndex(option, value.substring(4));
      if (index >= gpus) {
        throw new IllegalArgumentException(
            "device "
                + option
                + ": this machine has "
                + gpus
                + " GPU(s);"
                + " use auto or cpu, or deploy a CUDA build of the native library (docs/DJL.md)");
      }
      if (!isCudaBuild(engine)) {
        throw new IllegalArgumentException(
            "device "
                + option
                + ": this machine has a GPU but its "
                + engineName
                + " library is a CPU build; use auto or cpu, or deploy a CUDA build (docs/DJL.md)");
      }
      return Device.gpu(index);
    }
    throw new IllegalArgumentException("device " + option + ": expected " + FORMS);
  }

  /**
   * A GPU executor may still run a CPU build of the engine's native library (the one Infuse ships):
   * there auto means the CPU rather than a failed load.
   */
  private static boolean isCudaBuild(Engine engine) {
    return engine.hasCapability(StandardCapabilities.CUDA);
  }

  /** Checks the form of {@code option} without touching an engine, for config validation. */
  public static String problem(String option) {
    String value = option == null ? "" : option.trim().toLowerCase(Locale.ROOT);
    if (value.equals("auto") || value.equals("cpu") || value.equals("gpu")) {
      return null;
    }
    if (value.startsWith("gpu:")) {
      try {
        parseIndex(option, value.substring(4));
        return null;
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
    }
    return "device " + option + ": expected " + FORMS;
  }

  private static int parseIndex(String option, String digits) {
    try {
      int index = Integer.parseInt(digits);
      if (index >= 0) {
        return index;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("device " + option + ": expected " + FORMS + " with N >= 0");
  }
}
