namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// Student's t distribution for non-integer degrees of freedom (Welch's test needs them). Written out here rather
/// than taken from a statistics package: two functions are needed, and the offline package feed has none.
/// Accuracy is about 1e-10, far below what a handful of benchmark runs can resolve.
/// </summary>
public static class StudentT
{
    /// <summary>P(|T| ≥ |t|) for T ~ t(df): the two-sided p-value of a t statistic.</summary>
    public static double TwoSidedP(double t, double df)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(df);
        if (double.IsNaN(t)) return double.NaN;
        if (double.IsInfinity(t)) return 0;
        return RegularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
    }

    /// <summary>The t with P(|T| ≥ t) = <paramref name="twoSidedAlpha"/>, e.g. 2.228 for 0.05 and df = 10.</summary>
    public static double Quantile(double twoSidedAlpha, double df)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(df);
        if (twoSidedAlpha is <= 0 or >= 1) throw new ArgumentOutOfRangeException(nameof(twoSidedAlpha), "must be in (0, 1)");
        // The p-value falls monotonically in t: bracket, then bisect.
        double lo = 0, hi = 1;
        while (TwoSidedP(hi, df) > twoSidedAlpha) hi *= 2;
        for (var i = 0; i < 200 && hi - lo > 1e-12 * hi; i++)
        {
            var mid = (lo + hi) / 2;
            if (TwoSidedP(mid, df) > twoSidedAlpha) lo = mid; else hi = mid;
        }
        return (lo + hi) / 2;
    }

    /// <summary>I_x(a, b), by the continued fraction (modified Lentz), using the symmetry for fast convergence.</summary>
    public static double RegularizedIncompleteBeta(double x, double a, double b)
    {
        if (x <= 0) return 0;
        if (x >= 1) return 1;
        var front = Math.Exp(LogGamma(a + b) - LogGamma(a) - LogGamma(b) + a * Math.Log(x) + b * Math.Log(1 - x));
        return x < (a + 1) / (a + b + 2)
            ? front * BetaContinuedFraction(x, a, b) / a
            : 1 - front * BetaContinuedFraction(1 - x, b, a) / b;
    }

    private static double BetaContinuedFraction(double x, double a, double b)
    {
        const double Tiny = 1e-300;
        const double Epsilon = 1e-15;
        var c = 1.0;
        var d = 1 - (a + b) * x / (a + 1);
        d = 1 / (Math.Abs(d) < Tiny ? Tiny : d);
        var result = d;
        for (var m = 1; m <= 500; m++)
        {
            var m2 = 2 * m;
            // Even step.
            var num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
            d = 1 + num * d;
            c = 1 + num / c;
            d = 1 / (Math.Abs(d) < Tiny ? Tiny : d);
            c = Math.Abs(c) < Tiny ? Tiny : c;
            result *= d * c;
            // Odd step.
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
            d = 1 + num * d;
            c = 1 + num / c;
            d = 1 / (Math.Abs(d) < Tiny ? Tiny : d);
            c = Math.Abs(c) < Tiny ? Tiny : c;
            var step = d * c;
            result *= step;
            if (Math.Abs(step - 1) < Epsilon) break;
        }
        return result;
    }

    /// <summary>ln Γ(x) for x &gt; 0 (Lanczos, g = 7, n = 9).</summary>
    public static double LogGamma(double x)
    {
        ReadOnlySpan<double> c =
        [
            0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
        ];
        if (x < 0.5) return Math.Log(Math.PI / Math.Sin(Math.PI * x)) - LogGamma(1 - x);
        x -= 1;
        var sum = c[0];
        for (var i = 1; i < c.Length; i++) sum += c[i] / (x + i);
        var t = x + 7.5;
        return 0.5 * Math.Log(2 * Math.PI) + (x + 0.5) * Math.Log(t) - t + Math.Log(sum);
    }
}
