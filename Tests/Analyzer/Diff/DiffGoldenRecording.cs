using System.Globalization;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>
/// The golden input and output of <see cref="DiffGoldenTests"/>: a real pair of recordings, reduced to the per-run
/// figures TraceDiffer reads, and the p-values, confidence intervals and degrees of freedom that the hand-written
/// Student t distribution gave on them before MathNet.Numerics replaced it.
/// Recorded on the 2-core build VM (busy), analyzed with the kernel session, each figure printed round-trip ("R"):
///   baseline: esp record --n 20000 --runs 6 --serializers System.Text.Json,Google.Protobuf --quiet --env DOTNET_TieredCompilation=0
///   trace:    the same plus --appcontext System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported=false
/// Figures rather than the two trace folders: those are 3.6 and 4.2 MB, and what the analyzer makes of a trace
/// changes as the analyzer improves, which would move these goldens for reasons that are not the statistics.
/// The pair covers what the test must: clear and borderline significance, p = 1 (equal means), p near 1e-11,
/// identical runs on both sides (the exact path), tags present on one side only (0 ms on the other), and integer
/// and fractional Welch–Satterthwaite degrees of freedom.
/// </summary>
internal static class DiffGoldenRecording
{
    public const int Objects = 20_000;

    // serializer, operation, run, duration ms, sampled CPU ms, thread CPU ms (results.json), gen0, gen1, gen2, GC pause ms, allocated bytes, stack tags (path=ms)
    public static readonly RunAnalysis[] Baseline =
    [
        Run("System.Text.Json", "serialize", 1, 5.829567999999995, 4.004004, 4.6104, 0, 0, 0, 0, 0, @"Serialize\System.Text.Json=3.003003; Kernel\Interrupts and signals=1.001001"),
        Run("System.Text.Json", "serialize", 2, 4.700464000000011, 4.004004, 4.6385, 0, 0, 0, 0, 0, @"Serialize\System.Text.Json=4.004004"),
        Run("System.Text.Json", "serialize", 3, 5.181502000000023, 4.004004, 4.3328, 0, 0, 0, 0, 0, @"Serialize\System.Text.Json=2.002002; Native runtime\Runtime (libcoreclr, stripped)=2.002002"),
        Run("System.Text.Json", "serialize", 4, 7.755329999999958, 5.005005000000001, 4.6402, 0, 0, 0, 0, 0, @"Serialize\System.Text.Json=3.003003; Kernel\Interrupts and signals=1.001001; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("System.Text.Json", "serialize", 5, 9.857999999999947, 4.004004, 4.4463, 0, 0, 0, 0, 0, @"Serialize\System.Text.Json=3.003003; Kernel\System calls=1.001001"),
        Run("System.Text.Json", "deserialize", 1, 23.046532999999954, 16.016016000000004, 16.5804, 0, 0, 0, 0, 2207016, @"Kernel\Page faults=3.003003; Deserialize\System.Text.Json=6.006006000000001; Kernel\Interrupts and signals=1.001001; Kernel\System calls=1.001001; Native runtime\C library=3.003003; Native runtime\Runtime (libcoreclr, stripped)=2.002002"),
        Run("System.Text.Json", "deserialize", 2, 18.399941000000013, 18.018018, 17.7601, 0, 0, 0, 0, 2206672, @"Kernel\Page faults=6.006006000000001; Deserialize\System.Text.Json=5.005005000000001; Native runtime\C library=4.004004; Native runtime\Runtime (libcoreclr, stripped)=2.002002; Kernel\System calls=1.001001"),
        Run("System.Text.Json", "deserialize", 3, 31.488813999999934, 27.02702699999999, 26.6762, 1, 0, 0, 17.271720000000073, 2206416, @"Deserialize\System.Text.Json=8.008008000000002; Native runtime\C library=2.002002; Kernel\Page faults=2.002002; GC=14.014014000000005; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("System.Text.Json", "deserialize", 4, 14.048481999999922, 13.013013000000004, 13.5597, 0, 0, 0, 0, 2207208, @"Deserialize\System.Text.Json=8.008008000000002; Native runtime\Runtime (libcoreclr, stripped)=2.002002; Kernel\Page faults=1.001001; Native runtime\C library=2.002002"),
        Run("System.Text.Json", "deserialize", 5, 20.423570999999924, 19.019019, 19.1876, 0, 0, 0, 0, 2206928, @"Kernel\Page faults=7.0070070000000015; Native runtime\Runtime (libcoreclr, stripped)=2.002002; Kernel\System calls=2.002002; Deserialize\System.Text.Json=5.005005000000001; Native runtime\C library=3.003003"),
        Run("Google.Protobuf", "serialize", 1, 0.8636169999999765, 1.001001, 1.0146, 0, 0, 0, 0, 0, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "serialize", 2, 0.7550510000000941, 0, 0.9393, 0, 0, 0, 0, 0, @""),
        Run("Google.Protobuf", "serialize", 3, 0.6499499999999898, 0, 0.8329, 0, 0, 0, 0, 0, @""),
        Run("Google.Protobuf", "serialize", 4, 1.3839100000000144, 1.001001, 0.9936, 0, 0, 0, 0, 106560, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "serialize", 5, 0.9141129999999293, 1.001001, 0.8979, 0, 0, 0, 0, 0, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "deserialize", 1, 3.00664299999994, 3.003003, 3.2895, 0, 0, 0, 0, 2221840, @"Native runtime\Runtime (libcoreclr, stripped)=1.001001; Deserialize\Google.Protobuf=1.001001; Kernel\Page faults=1.001001"),
        Run("Google.Protobuf", "deserialize", 2, 4.414988999999991, 4.004004, 3.9169, 0, 0, 0, 0, 2214192, @"Deserialize\Google.Protobuf=2.002002; Kernel\Page faults=1.001001; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("Google.Protobuf", "deserialize", 3, 9.389014999999972, 9.009009000000002, 8.7324, 0, 1, 0, 4.051627000000053, 2200888, @"Deserialize\Google.Protobuf=5.005005000000001; GC=3.003003; Native runtime\C library=1.001001"),
        Run("Google.Protobuf", "deserialize", 4, 13.627860999999939, 11.011011000000003, 11.4037, 0, 0, 0, 0, 2219032, @"Native runtime\C library=5.005005000000001; Kernel\Page faults=1.001001; Deserialize\Google.Protobuf=4.004004; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("Google.Protobuf", "deserialize", 5, 16.72947499999998, 15.015015000000005, 14.6775, 0, 0, 1, 10.14056000000005, 2210600, @"Native runtime\C library=2.002002; Deserialize\Google.Protobuf=2.002002; Kernel\System calls=1.001001; GC=9.009009000000002; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
    ];

    public static readonly RunAnalysis[] Trace =
    [
        Run("System.Text.Json", "serialize", 1, 36.20305399999995, 10.010010000000003, 10.3711, 0, 0, 0, 0, 533000, @"Reflection\Interpreted invoke=2.002002; Serialize\System.Text.Json=7.0070070000000015; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("System.Text.Json", "serialize", 2, 24.952598999999964, 10.010010000000003, 10.8853, 0, 0, 0, 0, 426400, @"Serialize\System.Text.Json=7.0070070000000015; Reflection\Interpreted invoke=3.003003"),
        Run("System.Text.Json", "serialize", 3, 9.858652000000006, 9.009009000000002, 9.4396, 0, 0, 0, 0, 533000, @"Serialize\System.Text.Json=7.0070070000000015; Reflection\Type queries=1.001001; Reflection\Interpreted invoke=1.001001"),
        Run("System.Text.Json", "serialize", 4, 11.184971000000019, 11.011011000000003, 10.6925, 0, 0, 0, 0, 429112, @"Serialize\System.Text.Json=5.005005000000001; Kernel\Interrupts and signals=1.001001; Reflection\Interpreted invoke=5.005005000000001"),
        Run("System.Text.Json", "serialize", 5, 11.764245000000074, 12.012012000000004, 11.7959, 0, 0, 0, 0, 424864, @"Serialize\System.Text.Json=6.006006000000001; Reflection\Interpreted invoke=5.005005000000001; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("System.Text.Json", "deserialize", 1, 27.998245999999995, 23.023022999999995, 22.9646, 0, 0, 0, 0, 4615968, @"Deserialize\System.Text.Json=15.015015000000005; Reflection\Interpreted invoke=6.006006000000001; Kernel\System calls=1.001001; Kernel\Interrupts and signals=1.001001"),
        Run("System.Text.Json", "deserialize", 2, 44.940949000000046, 41.04104100000001, 40.5481, 1, 0, 0, 13.559820999999943, 4609248, @"Native runtime\Runtime (libcoreclr, stripped)=1.001001; Reflection\Interpreted invoke=4.004004; Deserialize\System.Text.Json=15.015015000000005; GC=13.013013000000004; Native runtime\C library=4.004004; Kernel\Interrupts and signals=2.002002; Kernel\Page faults=2.002002"),
        Run("System.Text.Json", "deserialize", 3, 61.416379000000006, 44.044044000000014, 44.6141, 1, 0, 0, 4.761890999999991, 4599448, @"Native runtime\C library=6.006006000000001; Deserialize\System.Text.Json=16.016016000000004; Reflection\Interpreted invoke=7.0070070000000015; Kernel\Page faults=9.009009000000002; Kernel\System calls=2.002002; GC=4.004004"),
        Run("System.Text.Json", "deserialize", 4, 28.854669999999942, 24.024023999999994, 23.2326, 0, 0, 0, 0, 4616504, @"Deserialize\System.Text.Json=11.011011000000003; Reflection\Interpreted invoke=8.008008000000002; Kernel\Page faults=1.001001; Native runtime\C library=1.001001; Kernel\System calls=1.001001; Native runtime\Runtime (libcoreclr, stripped)=2.002002"),
        Run("System.Text.Json", "deserialize", 5, 34.60651999999993, 27.02702699999999, 28.8213, 0, 0, 1, 8.777018999999996, 4608864, @"Reflection\Interpreted invoke=5.005005000000001; Native runtime\Runtime (libcoreclr, stripped)=5.005005000000001; Deserialize\System.Text.Json=8.008008000000002; GC=6.006006000000001; Kernel\Interrupts and signals=1.001001; Native runtime\C library=1.001001; Kernel\Page faults=1.001001"),
        Run("Google.Protobuf", "serialize", 1, 1.3427399999999352, 1.001001, 1.2035, 0, 0, 0, 0, 0, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "serialize", 2, 0.6533749999999827, 0, 0.7366, 0, 0, 0, 0, 0, @""),
        Run("Google.Protobuf", "serialize", 3, 0.7184300000000121, 0, 0.7973, 0, 0, 0, 0, 0, @""),
        Run("Google.Protobuf", "serialize", 4, 0.7883640000000014, 1.001001, 0.9546, 0, 0, 0, 0, 0, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "serialize", 5, 0.8053759999999102, 1.001001, 0.9598, 0, 0, 0, 0, 106560, @"Serialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "deserialize", 1, 4.948546999999962, 4.004004, 4.2165, 0, 0, 0, 0, 2213640, @"Deserialize\Google.Protobuf=2.002002; Native runtime\Runtime (libcoreclr, stripped)=2.002002"),
        Run("Google.Protobuf", "deserialize", 2, 3.6165269999999055, 3.003003, 3.3993, 0, 0, 0, 0, 2205440, @"Native runtime\Runtime (libcoreclr, stripped)=2.002002; Deserialize\Google.Protobuf=1.001001"),
        Run("Google.Protobuf", "deserialize", 3, 11.569374999999809, 10.010010000000003, 10.0312, 0, 1, 0, 4.5985299999999825, 2209200, @"Deserialize\Google.Protobuf=3.003003; Native runtime\Runtime (libcoreclr, stripped)=1.001001; GC=4.004004; Native runtime\C library=2.002002"),
        Run("Google.Protobuf", "deserialize", 4, 26.638071999999966, 11.011011000000003, 11.6763, 0, 0, 1, 0.815876999999773, 2218368, @"Kernel\Page faults=4.004004; Native runtime\C library=5.005005000000001; Deserialize\Google.Protobuf=1.001001; Native runtime\Runtime (libcoreclr, stripped)=1.001001"),
        Run("Google.Protobuf", "deserialize", 5, 12.94315500000016, 9.009009000000002, 8.9629, 0, 0, 0, 0, 2225032, @"Native runtime\C library=4.004004; Deserialize\Google.Protobuf=2.002002; Native runtime\Runtime (libcoreclr, stripped)=1.001001; Kernel\Page faults=2.002002"),
    ];

    /// <summary>One verdict as the hand-written code computed it; Significant, PValue etc. as in <see cref="NoiseVerdict"/>.</summary>
    public sealed record Golden(string Serializer, string Operation, string Metric, bool? Significant, double? PValue, double? CiLow, double? CiHigh, double? DegreesOfFreedom);

    // Every metric, explained remainder and stack tag of every row, in TraceDiffer's order.
    public static readonly Golden[] Verdicts =
    [
        new("Google.Protobuf", "serialize", @"durationMs", false, 0.7770192414004542, -0.45844780751493663, 0.35510540751487174, 7.995679819050003),
        new("Google.Protobuf", "serialize", @"cpuMs", false, 1, -0.799622887015853, 0.799622887015853, 8),
        new("Google.Protobuf", "serialize", @"threadCpuMs", false, 0.9538920823478138, -0.22651165044365776, 0.2159116504436576, 5.280604457925894),
        new("Google.Protobuf", "serialize", @"gcCount", false, 1, 0, 0, null),
        new("Google.Protobuf", "serialize", @"gcPauseMs", false, 1, 0, 0, null),
        new("Google.Protobuf", "serialize", @"allocatedBytes", false, 1, -69502.31766553376, 69502.31766553376, 8),
        new("Google.Protobuf", "serialize", @"durationMs - Reflection+Activator", false, 0.7770192414004542, -0.45844780751493663, 0.35510540751487174, 7.995679819050003),
        new("Google.Protobuf", "serialize", @"cpuMs - Reflection+Activator", false, 1, -0.799622887015853, 0.799622887015853, 8),
        new("Google.Protobuf", "serialize", @"threadCpuMs - Reflection+Activator", false, 0.9538920823478138, -0.22651165044365776, 0.2159116504436576, 5.280604457925894),
        new("Google.Protobuf", "serialize", @"Serialize\Google.Protobuf", false, 1, -0.799622887015853, 0.799622887015853, 8),
        new("System.Text.Json", "serialize", @"durationMs", false, 0.07687812106782249, -2.0228366072167567, 26.27829940721679, 4.274475101737521),
        new("System.Text.Json", "serialize", @"cpuMs", true, 7.327159757873656E-05, 4.8131580112692305, 7.599254388730774, 5.202312138728323),
        new("System.Text.Json", "serialize", @"threadCpuMs", true, 6.62244750433649E-05, 5.050710523076065, 7.155769476923934, 4.209200542968259),
        new("System.Text.Json", "serialize", @"gcCount", false, 1, 0, 0, null),
        new("System.Text.Json", "serialize", @"gcPauseMs", false, 1, 0, 0, null),
        new("System.Text.Json", "serialize", @"allocatedBytes", true, 5.56049657190587E-05, 397019.7954348622, 541530.6045651378, 4),
        new("System.Text.Json", "serialize", @"durationMs - Reflection+Activator", false, 0.19141876219090717, -6.534391393410006, 23.98304739341004, 4.236577876722645),
        new("System.Text.Json", "serialize", @"cpuMs - Reflection+Activator", true, 0.00016571702870116225, 1.9107032304274085, 3.6949023695725955, 6.758620689655174),
        new("System.Text.Json", "serialize", @"threadCpuMs - Reflection+Activator", true, 0.0026156714644923152, 1.5272886139430975, 3.794117588077107, 4.1807219672925475),
        new("System.Text.Json", "serialize", @"Serialize\System.Text.Json", true, 0.0001993209377382834, 2.2153900917971114, 4.5914167082028925, 7.595505617977528),
        new("System.Text.Json", "serialize", @"Reflection\Interpreted invoke", true, 0.016130089900092574, 0.9798237386013282, 5.426582661398672, 4),
        new("System.Text.Json", "serialize", @"Native runtime\Runtime (libcoreclr, stripped)", false, 0.6833160045770877, -1.323096809710721, 0.9226964097107209, 6.63013698630137),
        new("System.Text.Json", "serialize", @"Kernel\Interrupts and signals", false, 0.5454243096721589, -0.9352663786466624, 0.5348659786466625, 7.692307692307693),
        new("System.Text.Json", "serialize", @"Kernel\System calls", false, 0.37390096630005765, -0.7560450653496678, 0.3556446653496678, 4),
        new("System.Text.Json", "serialize", @"Reflection\Type queries", false, 0.37390096630005765, -0.3556446653496678, 0.7560450653496678, 4),
        new("Google.Protobuf", "deserialize", @"durationMs", false, 0.6220420021236794, -9.052662124719559, 14.071739324719553, 6.805467213120665),
        new("Google.Protobuf", "deserialize", @"cpuMs", false, 0.7273738757460012, -7.475422956209023, 5.473420956209022, 7.332011667697902),
        new("Google.Protobuf", "deserialize", @"threadCpuMs", false, 0.7913211480126427, -7.110199795584443, 5.616679795584441, 7.423788136807829),
        new("Google.Protobuf", "deserialize", @"gcCount", false, 1, -0.7988232649276606, 0.7988232649276606, 8),
        new("Google.Protobuf", "deserialize", @"gcPauseMs", false, 0.45343238124598106, -7.191893524778993, 3.680781524778854, 5.552506428128997),
        new("Google.Protobuf", "deserialize", @"allocatedBytes", false, 0.8433273957776873, -10565.00817634645, 12616.208176346636, 7.969400223525698),
        new("Google.Protobuf", "deserialize", @"durationMs - Reflection+Activator", false, 0.6220420021236794, -9.052662124719559, 14.071739324719553, 6.805467213120665),
        new("Google.Protobuf", "deserialize", @"cpuMs - Reflection+Activator", false, 0.7273738757460012, -7.475422956209023, 5.473420956209022, 7.332011667697902),
        new("Google.Protobuf", "deserialize", @"threadCpuMs - Reflection+Activator", false, 0.7913211480126427, -7.110199795584443, 5.616679795584441, 7.423788136807829),
        new("Google.Protobuf", "deserialize", @"GC", false, 0.4395235047963809, -6.3951409406835, 3.191937740683499, 5.60307780460852),
        new("Google.Protobuf", "deserialize", @"Deserialize\Google.Protobuf", false, 0.27124149864280866, -3.025464015037995, 1.0234620150379947, 5.943444730077119),
        new("Google.Protobuf", "deserialize", @"Native runtime\Runtime (libcoreclr, stripped)", false, 0.09581834218695803, -0.1344655786466622, 1.335666778646663, 7.692307692307693),
        new("Google.Protobuf", "deserialize", @"Kernel\Page faults", false, 0.5070351530008463, -1.5877506386802853, 2.788951838680285, 4.743465634075507),
        new("Google.Protobuf", "deserialize", @"Native runtime\C library", false, 0.6749608421872333, -2.5861660789994585, 3.7873672789994584, 7.928838128706347),
        new("Google.Protobuf", "deserialize", @"Kernel\System calls", false, 0.37390096630005765, -0.7560450653496678, 0.3556446653496678, 4),
        new("System.Text.Json", "deserialize", @"durationMs", true, 0.04152131158391978, 0.9812873559445201, 35.182481844055545, 5.651819671631821),
        new("System.Text.Json", "deserialize", @"cpuMs", true, 0.038750039892203623, 0.9447872289682202, 25.481639171031777, 6.055508830950371),
        new("System.Text.Json", "deserialize", @"threadCpuMs", true, 0.03841770999585355, 0.9932155112502166, 25.57346448874979, 5.806223792678321),
        new("System.Text.Json", "deserialize", @"gcCount", false, 0.24287561215028275, -0.33433111320234704, 1.134331113202347, 7.692307692307692),
        new("System.Text.Json", "deserialize", @"gcPauseMs", false, 0.662986217827759, -8.154419054780988, 12.08522345478093, 7.450515839155036),
        new("System.Text.Json", "deserialize", @"allocatedBytes", true, 1.5088129251078948E-11, 2394580.5449244664, 2411736.2550755343, 4.015982561599867),
        new("System.Text.Json", "deserialize", @"durationMs - Reflection+Activator", false, 0.13680710053913492, -5.242335637184624, 29.39409283718468, 5.612659794480623),
        new("System.Text.Json", "deserialize", @"cpuMs - Reflection+Activator", false, 0.21912164568111625, -5.680514722872143, 20.09492912287214, 5.874776397603008),
        new("System.Text.Json", "deserialize", @"threadCpuMs - Reflection+Activator", false, 0.21440439308982218, -5.634989453641765, 20.151328286616263, 5.649858677775513),
        new("System.Text.Json", "deserialize", @"Deserialize\System.Text.Json", true, 0.008634317335546452, 2.45379282167481, 10.7594203783252, 5.538461538461539),
        new("System.Text.Json", "deserialize", @"Reflection\Interpreted invoke", true, 0.001057564615830689, 4.040797632117632, 7.97121436788237, 4),
        new("System.Text.Json", "deserialize", @"GC", false, 0.6388786759107338, -6.745618104761413, 10.349221704761412, 7.817149039761969),
        new("System.Text.Json", "deserialize", @"Kernel\Page faults", false, 0.5668676131228878, -5.906818371229207, 3.504415971229209, 7.214356569573449),
        new("System.Text.Json", "deserialize", @"Kernel\Interrupts and signals", false, 0.20615100673623288, -0.4339283348164942, 1.635129534816494, 6.113207547169812),
        new("System.Text.Json", "deserialize", @"Native runtime\C library", false, 0.7493787882258005, -3.468035150696005, 2.6672343506960066, 4.878048780487805),
        new("System.Text.Json", "deserialize", @"Native runtime\Runtime (libcoreclr, stripped)", false, 0.8424969505172899, -2.750788560342113, 2.3503881603421126, 4.3712898003238),
        new("System.Text.Json", "deserialize", @"Kernel\System calls", false, 1, -1.2214441357230894, 1.2214441357230894, 8),
    ];

    public static TraceDiff Diff() => TraceDiffer.Compute(Side("emit"), Baseline, Side("reflection"), Trace);

    private static DiffSide Side(string path) => new(path, ".NET 10.0.12", [], new Dictionary<string, string>(), []);

    private static RunAnalysis Run(string serializer, string operation, int run, double durationMs, double cpuMs, double threadCpuMs,
        int gen0, int gen1, int gen2, double gcPauseMs, long allocatedBytes, string tags)
    {
        var r = new RunDraft
        {
            Key = new RunKey(serializer, operation, Objects, run),
            EndMs = durationMs,
            CpuMs = cpuMs,
            Gen0 = gen0,
            Gen1 = gen1,
            Gen2 = gen2,
            GcPauseMs = gcPauseMs,
            InProcess = new RunResult
            {
                Serializer = serializer, Operation = operation, Data = "BookShelf", Objects = Objects, Run = run,
                DurationMs = durationMs, GcCount = new GcCounts(gen0, gen1, gen2), GcPauseMs = gcPauseMs, AllocatedBytes = allocatedBytes, CpuMs = threadCpuMs,
            },
        };
        r.Counters.CountAllocation(allocatedBytes, "?");
        // In the recorded order: the explained view sums a run's tags, and the order of a floating-point sum is part of the figure.
        foreach (var tag in tags.Split("; ", StringSplitOptions.RemoveEmptyEntries))
        {
            var eq = tag.LastIndexOf('=');
            r.TagTable[tag[..eq]] = double.Parse(tag[(eq + 1)..], CultureInfo.InvariantCulture);
        }
        return r.Freeze();
    }
}
