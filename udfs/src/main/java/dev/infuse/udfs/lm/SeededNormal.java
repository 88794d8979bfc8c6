package dev.infuse.udfs.lm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.initializer.Initializer;
import java.util.SplittableRandom;

/**
 * Normal(0, std) weights drawn from a Java RNG seeded per parameter, not from the engine's global
 * RNG: the same seed gives the same model on any device and whatever else the JVM has drawn.
 */
final class SeededNormal implements Initializer {
  private final long seed;
  private final double std;

  SeededNormal(long seed, double std) {
    this.seed = seed;
    this.std = std;
  }

  /** A seed for one named parameter, so adding a parameter does not reshuffle the others. */
  static long seedFor(long modelSeed, String parameterPath) {
    return new SplittableRandom(modelSeed ^ (0x9E3779B97F4A7C15L * parameterPath.hashCode()))
        .nextLong();
  }

  @Override
  public NDArray initialize(NDManager manager, Shape shape, DataType dataType) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] values = new float[Math.toIntExact(shape.size())];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) (gaussian(random) * std);
    }
    return manager.create(values, shape).toType(dataType, false);
  }

  /** Box-Muller; SplittableRandom has no nextGaussian on Java 17. */
  private static double gaussian(SplittableRandom random) {
    double u1 = 1.0 - random.nextDouble();
    double u2 = random.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
  }
}
