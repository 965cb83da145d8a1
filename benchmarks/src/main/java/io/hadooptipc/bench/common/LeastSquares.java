package io.hadooptipc.bench.common;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/**
 * Least-squares fits of y = a + b·f(x), the simple models the scaling benchmarks extrapolate with: f is the
 * model's term (N for a linear model, N(N-1)/2 for one that grows with the pairs of nodes).
 */
public final class LeastSquares {
    private LeastSquares() {
    }

    /** A model's name (its formula, as printed) and its term f. */
    public record Model(String formula, DoubleUnaryOperator term) {
        public static final Model LINEAR = new Model("a + b·N", n -> n);
        public static final Model PAIRS = new Model("a + b·N(N-1)/2", n -> n * (n - 1) / 2);
    }

    /** A fitted model: intercept a, slope b, and the root mean square of its residuals (in y's unit). */
    public record Fit(Model model, double intercept, double slope, double rmsError) {
        public double at(double x) {
            return intercept + slope * model.term().applyAsDouble(x);
        }

        /** The formula with the fitted figures, e.g. {@code 1.2 + 0.034·N (RMS error 0.1)}. */
        public String describe() {
            String term = model.formula().substring(model.formula().indexOf('·') + 1);
            return String.format(Locale.ROOT, "%.4g %s %.4g·%s (RMS error %.3g)", intercept, slope < 0 ? "-" : "+",
                    Math.abs(slope), term, rmsError);
        }
    }

    /** Fits {@code model} to the points (x[i], y[i]); needs two distinct terms at least. */
    public static Fit fit(Model model, double[] x, double[] y) {
        if (x.length != y.length) {
            throw new IllegalArgumentException(x.length + " x values but " + y.length + " y values");
        }
        double[] t = Arrays.stream(x).map(model.term()).toArray();
        double meanT = Arrays.stream(t).average().orElse(Double.NaN);
        double meanY = Arrays.stream(y).average().orElse(Double.NaN);
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i < t.length; i++) {
            sxx += (t[i] - meanT) * (t[i] - meanT);
            sxy += (t[i] - meanT) * (y[i] - meanY);
        }
        if (!(sxx > 0)) {
            throw new IllegalArgumentException("a fit of " + model.formula() + " needs two different N at least, got "
                    + Arrays.toString(x));
        }
        double slope = sxy / sxx;
        double intercept = meanY - slope * meanT;
        double squares = 0;
        for (int i = 0; i < t.length; i++) {
            double r = y[i] - (intercept + slope * t[i]);
            squares += r * r;
        }
        return new Fit(model, intercept, slope, Math.sqrt(squares / t.length));
    }
}
