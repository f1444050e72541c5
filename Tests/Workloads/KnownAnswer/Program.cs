using System.Text.Json;
using EtwSerializerProfiler.Workloads;

// KnownAnswer [--workload parts|invoke,attributes,harness|jit,typeload|hotratio|causes|sidethread|native] [--native-lib F] [--runs R] [--run-ms M] [--truth FILE]:
// runs the parts in random interleaved chunks inside marked runs and writes each part's thread CPU time per run to FILE
// (JSON), the truth the analyzer's stack tags are held to. The other workloads hold its reflection attribution to known
// answers (Tests/EndToEnd/ReflectionAttributionTests.cs); of them only the attribute lookups have a truth to write. jit
// and typeload interleave runtime work with arithmetic and write RuntimeWorkTruth per run
// (Tests/EndToEnd/NativeRuntimeTruthTests.cs). hotratio runs two methods in a ratio that differs by N and writes
// HotRatioTruth per run (Tests/EndToEnd/HotMethodsPerNTests.cs). causes makes three causes a verdict names (attribute
// lookups, throwing, allocation) and writes CausesTruth per run (Tests/EndToEnd/VerdictCausesTests.cs). sidethread burns beside the worker on a named thread in one case and not in the
// other, and writes SideThreadTruth per run (Tests/EndToEnd/OtherThreadsTruthTests.cs). The native workload calls two C functions of the library F
// (Native/espburn.c) and writes each one's thread CPU time per run.
var runs = 4;
var workloads = "parts";
var runMs = 250.0;
string? truthPath = null;
string? nativeLibrary = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--runs": runs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--run-ms": runMs = double.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--truth": truthPath = args[++i]; break;
        case "--workload": workloads = args[++i]; break;
        case "--native-lib": nativeLibrary = args[++i]; break;
        default: Console.Error.WriteLine($"KnownAnswer: unknown argument '{args[i]}'"); return 2;
    }
}
object truth;
if (workloads == "parts")
{
    truth = new PartsWorkload().Run(runs, runMs);
}
else if (workloads == "native")
{
    if (nativeLibrary is null) { Console.Error.WriteLine("KnownAnswer: --workload native needs --native-lib F"); return 2; }
    truth = new NativeWorkload(nativeLibrary).Run(runs, runMs);
}
else
{
    using var marker = new EtwSerializerProfiler.RunMarkers.MarkerThread();
    var scope = new EtwSerializerProfiler.Benchmark.Runs.RunScope(marker, allThreads: false);
    IReadOnlyList<AttributesTruth> attributes = [];
    var runtimeWork = new List<RuntimeWorkTruth>();
    IReadOnlyList<HotRatioTruth> hotRatio = [];
    IReadOnlyList<CausesTruth> causes = [];
    IReadOnlyList<SideThreadTruth> side = [];
    JitWorkload jit;
    TypeLoadWorkload types;
    foreach (var workload in workloads.Split(','))
    {
        switch (workload)
        {
            case "invoke": new InvokeWorkload().Run(scope, runs, runMs); break;
            case "attributes": attributes = new AttributesWorkload().Run(scope, runs, runMs); break;
            case "harness": new HarnessWorkload().Run(scope, runs, runMs); break;
            case "hotratio": hotRatio = new HotRatioWorkload().Run(scope, runs, runMs); break;
            case "causes": causes = new CausesWorkload().Run(scope, runs, runMs); break;
            case "sidethread": side = new SideThreadWorkload().Run(scope, runs, runMs); break;
            case "jit": runtimeWork.AddRange(new InterleavedParts("Jit", (jit = new JitWorkload()).Compile, jit.Again).Run(scope, runs, runMs, warmups: 2)); break;
            case "typeload": runtimeWork.AddRange(new InterleavedParts("TypeLoad", (types = new TypeLoadWorkload()).Load, types.Again).Run(scope, runs, runMs, warmups: 2)); break;
            default: Console.Error.WriteLine($"KnownAnswer: unknown workload '{workload}'"); return 2;
        }
    }
    truth = runtimeWork.Count > 0 ? runtimeWork : hotRatio.Count > 0 ? hotRatio : causes.Count > 0 ? causes : side.Count > 0 ? side : attributes;
}
var json = JsonSerializer.Serialize(truth, new JsonSerializerOptions { WriteIndented = true });
if (truthPath is null) Console.WriteLine(json);
else File.WriteAllText(truthPath, json);
return 0;
