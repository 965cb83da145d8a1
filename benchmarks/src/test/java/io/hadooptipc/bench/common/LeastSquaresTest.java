package io.hadooptipc.bench.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadooptipc.bench.common.LeastSquares.Fit;
import io.hadooptipc.bench.common.LeastSquares.Model;
import org.junit.jupiter.api.Test;

class LeastSquaresTest {
    private static final double[] N = {8, 16, 32, 64};

    @Test
    void recoversALineExactly() {
        Fit fit = LeastSquares.fit(Model.LINEAR, N, new double[]{19, 35, 67, 131}); // 3 + 2N
        assertEquals(3, fit.intercept(), 1e-9);
        assertEquals(2, fit.slope(), 1e-9);
        assertEquals(0, fit.rmsError(), 1e-9);
        assertEquals(2003, fit.at(1000), 1e-6);
    }

    @Test
    void fitsThePairsOfNodesNotN() {
        // 1 + 0.5·N(N-1)/2: 15, 61, 249, 1009
        double[] y = {15, 61, 249, 1009};
        Fit pairs = LeastSquares.fit(Model.PAIRS, N, y);
        assertEquals(1, pairs.intercept(), 1e-9);
        assertEquals(0.5, pairs.slope(), 1e-9);
        assertEquals(1 + 0.5 * 1000 * 999 / 2, pairs.at(1000), 1e-6);
        // a line through the same points misses them
        assertTrue(LeastSquares.fit(Model.LINEAR, N, y).rmsError() > 10);
    }

    @Test
    void rmsErrorIsTheResidualsRootMeanSquare() {
        // the best line through (0,0), (1,2), (2,0), (3,2) is y = 0.4 + 0.4x; residuals -0.4, 1.2, -1.2, 0.4
        Fit fit = LeastSquares.fit(Model.LINEAR, new double[]{0, 1, 2, 3}, new double[]{0, 2, 0, 2});
        assertEquals(0.4, fit.intercept(), 1e-9);
        assertEquals(0.4, fit.slope(), 1e-9);
        assertEquals(Math.sqrt((0.16 + 1.44 + 1.44 + 0.16) / 4), fit.rmsError(), 1e-9);
        assertEquals("0.4000 + 0.4000·N (RMS error 0.894)", fit.describe());
    }

    @Test
    void oneSizeAloneCannotBeFitted() {
        assertThrows(IllegalArgumentException.class,
                () -> LeastSquares.fit(Model.LINEAR, new double[]{8, 8}, new double[]{1, 2}));
    }
}
