package dev.infuse.udfs.lm.rl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import ai.djl.training.initializer.Initializer;
import ai.djl.util.Pair;
import dev.infuse.udfs.lm.ModelDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A scalar head on a decoder's final hidden states: {@code Linear(dModel -> 1)}, one number per
 * position. PPO's value function reads it (with a bias, {@code value_head.weight} [1, dModel] and
 * {@code value_head.bias} [1]); the {@link ScalarVerifier} reads it without a bias, as the
 * reference reward model's {@code v_head = nn.Linear(n_embd, 1, bias=False)} does.
 *
 * <p>The weight starts Normal(0, 0.02) from a Java RNG seeded by {@code seed} alone (the same on
 * every device), the bias at 0; HuggingFace initialises a sequence-classification score head the
 * same way. Saved as one safetensors file keyed by the parameter names.
 */
public final class ValueHead implements AutoCloseable {
  /** The parameter-name prefix. */
  public static final String PREFIX = "value_head";

  private static final double INIT_STD = 0.02;

  private final int dModel;
  private final boolean bias;
  private final NDManager manager;
  private final Linear linear;
  private final Map<String, Parameter> parameters = new LinkedHashMap<>();

  private ValueHead(int dModel, boolean bias, Device device, long seed) {
    this.dModel = dModel;
    this.bias = bias;
    this.manager = NDManager.newBaseManager(device, "PyTorch");
    this.linear = Linear.builder().setUnits(1).optBias(bias).build();
    Initializer normal =
        (NDManager m, Shape shape, DataType type) -> {
          SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
          float[] values = new float[Math.toIntExact(shape.size())];
          for (int i = 0; i < values.length; i++) {
            double u1 = 1.0 - random.nextDouble();
            double u2 = random.nextDouble();
            values[i] =
                (float) (Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2) * INIT_STD);
          }
          return m.create(values, shape).toType(type, false);
        };
    linear.setInitializer(normal, Parameter.Type.WEIGHT);
    linear.initialize(manager, DataType.FLOAT32, new Shape(1, 1, dModel));
    for (Pair<String, Parameter> entry : linear.getParameters()) {
      String name = PREFIX + "." + entry.getKey();
      entry.getValue().getArray().setName(name);
      parameters.put(name, entry.getValue());
    }
  }

  /** A head with a bias, as PPO's value function uses. */
  public static ValueHead create(int dModel, Device device, long seed) {
    return create(dModel, true, device, seed);
  }

  /**
   * A freshly initialised head.
   *
   * @param bias whether the head has a bias term
   */
  public static ValueHead create(int dModel, boolean bias, Device device, long seed) {
    if (dModel <= 0) {
      throw new IllegalArgumentException("dModel: got " + dModel + ", expected a positive integer");
    }
    return new ValueHead(dModel, bias, device, seed);
  }

  /** The hidden width it reads. */
  public int dModel() {
    return dModel;
  }

  /** Whether it has a bias. */
  public boolean hasBias() {
    return bias;
  }

  /** Its parameters by name ({@code value_head.weight}, and {@code value_head.bias} if any). */
  public Map<String, Parameter> parameters() {
    return Collections.unmodifiableMap(parameters);
  }

  /**
   * One scalar per position, recording gradients inside a {@code GradientCollector}.
   *
   * @param hidden float32 [B, T, dModel]
   * @return float32 [B, T]
   */
  public NDArray forward(NDArray hidden) {
    Shape shape = hidden.getShape();
    if (shape.dimension() != 3 || shape.get(2) != dModel) {
      throw new IllegalArgumentException(
          "hidden: got shape " + shape + ", expected (B, T, " + dModel + ")");
    }
    ParameterStore store = new ParameterStore(hidden.getManager(), false);
    NDArray out =
        linear.forward(store, new NDList(hidden.toDevice(manager.getDevice(), false)), true).head();
    return out.reshape(shape.get(0), shape.get(1));
  }

  /** Copies named tensors (as {@link #save} writes) into this head; each must be present. */
  public void loadWeights(NDList weights) {
    Map<String, NDArray> byName = new LinkedHashMap<>();
    weights.forEach(array -> byName.put(array.getName(), array));
    parameters.forEach(
        (name, parameter) -> {
          NDArray source = byName.get(name);
          NDArray target = parameter.getArray();
          if (source == null || !source.getShape().equals(target.getShape())) {
            throw new IllegalArgumentException(
                "value head: tensor "
                    + name
                    + (source == null
                        ? " is missing"
                        : " has shape " + source.getShape() + ", expected " + target.getShape()));
          }
          target.set(source.toType(DataType.FLOAT32, false).toFloatArray());
        });
  }

  /** Writes the head's tensors to one safetensors file (not atomically: callers make it so). */
  public void save(Path file) {
    NDList tensors = new NDList();
    parameters.values().forEach(parameter -> tensors.add(parameter.getArray()));
    try {
      Files.write(file, tensors.encode(NDList.Encoding.SAFETENSORS));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the value head " + file.toAbsolutePath(), e);
    }
  }

  /** Reads a head written by {@link #save}; its width and bias come from the file. */
  public static ValueHead load(Path file, Device device) {
    try (NDManager scratch = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      NDList tensors = ModelDirectory.readTensors(file, scratch);
      NDArray weight = tensors.get(PREFIX + ".weight");
      if (weight == null || weight.getShape().dimension() != 2 || weight.getShape().get(0) != 1) {
        throw new IllegalArgumentException(
            file.toAbsolutePath() + ": expected a tensor " + PREFIX + ".weight of shape (1, d)");
      }
      boolean hasBias = tensors.contains(PREFIX + ".bias");
      ValueHead head = new ValueHead(Math.toIntExact(weight.getShape().get(1)), hasBias, device, 0);
      head.loadWeights(tensors);
      return head;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the value head " + file.toAbsolutePath(), e);
    }
  }

  @Override
  public void close() {
    manager.close();
  }
}
