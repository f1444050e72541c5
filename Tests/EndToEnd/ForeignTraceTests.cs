using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// A .nettrace that our recorder did not make: the runtime writes it itself (DOTNET_EnableEventPipe), the way
/// containers and CI jobs often collect traces. The analyzer must read it through the same path.
/// </summary>
[EndToEnd]
public sealed class ForeignTraceTests
{
    [Fact]
    public void A_trace_written_by_the_runtime_itself_is_analyzed_and_matches_the_benchmarks_own_numbers()
    {
        var dir = Repo.NewTempDir("foreign");
        var trace = Path.Combine(dir, "self.nettrace");
        var results = Path.Combine(dir, "results.json");
        var psi = new System.Diagnostics.ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardOutput = true };
        foreach (var a in new[] { Repo.BenchmarkDll, "--n", "20000", "--warmup", "1", "--runs", "2", "--ops", "1", "--payload-bytes", "256", "--serializers", "System.Text.Json,Reflection", "--json", results, "--quiet" })
            psi.ArgumentList.Add(a);
        psi.Environment["DOTNET_EnableEventPipe"] = "1";
        psi.Environment["DOTNET_EventPipeOutputPath"] = trace;
        psi.Environment["DOTNET_EventPipeOutputStreaming"] = "1";
        psi.Environment["DOTNET_EventPipeConfig"] =
            "Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:0x4000000C019:5,EtwSerializerProfiler-Runs:0xFFFFFFFFFFFFFFFF:4";
        using (var p = System.Diagnostics.Process.Start(psi)!)
        {
            p.StandardOutput.ReadToEnd();
            Assert.True(p.WaitForExit(120_000));
            Assert.Equal(0, p.ExitCode);
        }

        using var input = TraceInput.Open(trace);
        Assert.Equal(results, input.ResultsPath); // companions next to a bare .nettrace are found
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        var truth = BenchmarkResults.Load(results);
        Assert.Equal(truth.Runs.Count, analysis.Runs.Count);
        foreach (var run in analysis.Runs)
        {
            Assert.NotNull(run.InProcess);
            Assert.True(run.GcCount == run.InProcess!.GcCount, $"{run.Key}: trace {run.GcCount} vs in-process {run.InProcess.GcCount}");
            WindowTruth.AssertAgrees(run);
        }
        Assert.True(analysis.Runs.Where(r => r.Key.Serializer == "Reflection").Sum(r => r.TagMs("Reflection")) > 0, "stacks did not resolve");
        Directory.Delete(dir, recursive: true);
    }
}
