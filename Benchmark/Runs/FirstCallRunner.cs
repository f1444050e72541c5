using System.Diagnostics;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Measures each serializer's first use (JIT, type loading, code generation) in a fresh process. With one
/// serializer selected the current process is fresh enough and measures itself, which is also how a recorder
/// traces a single first call; with several, one child process per serializer.
/// </summary>
public sealed class FirstCallRunner(BenchmarkOptions options, IProgress<string>? progress) : Runner
{
    public override void Run(CancellationToken cancel)
    {
        var serializers = options.Serializers.Count == 0 ? SerializerCatalog.All : options.Serializers;
        if (serializers.Count == 1 || options.FirstCallChild)
        {
            MeasureInProcess(serializers[0]);
            return;
        }
        var i = 0;
        foreach (var serializer in serializers)
        {
            cancel.ThrowIfCancellationRequested();
            progress?.Report($"[{++i}/{serializers.Count}] first call of {serializer.Name} in a fresh process");
            RunChild(serializer, cancel);
        }
    }

    private void MeasureInProcess(Serializer serializer)
    {
        var dataType = DataFactory.TypeOf(options.Data);
        var reason = serializer.UnsupportedReason ?? serializer.UnsupportedDataReason(dataType);
        if (reason is not null) { Unsupported.Add(new UnsupportedSerializer(serializer.Name, reason)); return; }
        var count = options.Counts[0];
        var data = DataFactory.Create(options.Data, count, options.PayloadBytes);
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: false);
        var output = new MemoryStream();
        // First use = one serialize and one deserialize, the cost a service pays on its first request.
        RunMeasurement m;
        try
        {
            m = scope.Measure(new RunContext(serializer.Name, "firstcall", dataType.Name, count, 0), () =>
            {
                serializer.Serialize(data, output);
                output.Position = 0;
                GC.KeepAlive(serializer.Deserialize(dataType, output));
            });
        }
        catch (Exception ex) when (NotRunnable.Reason(ex, anyMeasured: false) is { } why)
        {
            Unsupported.Add(new UnsupportedSerializer(serializer.Name, why));
            return;
        }
        Results.Add(new RunResult
        {
            Serializer = serializer.Name, SerializerVersion = serializer.Version, Format = serializer.Format,
            Operation = "firstcall", Data = dataType.Name, Objects = count, Run = 0, DurationMs = m.DurationMs, OuterDurationMs = m.OuterDurationMs,
            SizeBytes = output.Length, GcCount = m.Gcs, GcPauseMs = m.GcPauseMs, AllocatedBytes = m.AllocatedBytes,
            CpuMs = m.CpuMs, ThreadsCpuMs = m.ThreadsCpuMs, ProcessCpuMs = m.ProcessCpuMs, WorkerThreadId = m.WorkerThreadId, MarkerThreadId = m.MarkerThreadId,
            CompiledMethods = m.Jit?.CompiledMethods, CompilationMs = m.Jit?.CompilationTime.TotalMilliseconds,
            ThreadCompilationMs = m.Jit?.ThreadCompilationTime.TotalMilliseconds,
        });
    }

    private void RunChild(Serializer serializer, CancellationToken cancel)
    {
        var json = Path.Combine(Path.GetTempPath(), $"firstcall-{Environment.ProcessId}-{Guid.NewGuid():N}.json");
        try
        {
            var psi = new ProcessStartInfo(Environment.ProcessPath ?? "dotnet") { UseShellExecute = false, RedirectStandardOutput = true };
            // A recorder's suspend-mode diagnostic port is for this process only: a child inheriting it would hang.
            psi.Environment.Remove("DOTNET_DiagnosticPorts");
            var entry = Path.Combine(AppContext.BaseDirectory, typeof(FirstCallRunner).Assembly.GetName().Name + ".dll");
            if (!Path.GetFileNameWithoutExtension(psi.FileName).Equals(Path.GetFileNameWithoutExtension(entry), StringComparison.OrdinalIgnoreCase))
                psi.ArgumentList.Add(entry); // running under the dotnet host
            foreach (var a in new[] { "--test", "firstcall", "--firstcall-child", "--quiet", "--serializers", serializer.Name,
                         "--n", options.Counts[0].ToString(System.Globalization.CultureInfo.InvariantCulture),
                         "--data", options.Data.ToString(), BenchmarkArgs.JsonFlag, json })
                psi.ArgumentList.Add(a);
            foreach (var (name, value) in options.AppContext)
            {
                psi.ArgumentList.Add("--appcontext");
                psi.ArgumentList.Add($"{name}={(value ? "true" : "false")}");
            }
            using var child = Process.Start(psi) ?? throw new InvalidOperationException("could not start child process");
            child.StandardOutput.ReadToEnd();
            child.WaitForExitAsync(cancel).GetAwaiter().GetResult();
            if (child.ExitCode != 0 || !File.Exists(json))
            {
                Errors.Add($"{serializer.Name}: first-call child exited with code {child.ExitCode}");
                return;
            }
            var results = BenchmarkResults.Load(json);
            Results.AddRange(results.Runs);
            Unsupported.AddRange(results.Unsupported);
            Errors.AddRange(results.Errors);
        }
        finally
        {
            File.Delete(json);
        }
    }
}
