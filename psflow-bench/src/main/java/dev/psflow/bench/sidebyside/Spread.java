package dev.psflow.bench.sidebyside;

import java.util.Arrays;
import java.util.List;

/**
 * The median of a few runs with their minimum and maximum. Unknown values (NaN) are left out; with
 * none left every field is NaN.
 */
record Spread(double median, double min, double max, int count) {
  static Spread of(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (v.length == 0) {
      return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    int mid = v.length / 2;
    double median = v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    return new Spread(median, v[0], v[v.length - 1], v.length);
  }

  static Spread of(double... values) {
    return of(Arrays.stream(values).boxed().toList());
  }
}
