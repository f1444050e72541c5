using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Data;
using EtwSerializerProfiler.Benchmark.Runs.TracingCost;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Benchmark.Verification;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// Runs serialize/deserialize for every selected serializer and object count. Test data and serialized bytes
/// are prepared outside the measured window; only the serializer call is inside it.
/// </summary>
public sealed class BenchmarkRunner(BenchmarkOptions options, IProgress<string>? progress) : Runner
{
    private HeapSnapshotPoint? _heap;
    private CaseRunner? _cases;

    /// <summary>--tracing-cost: the case groups to run again with tracing off and on (null when not asked).</summary>
    private TracingCostBlocks? TracingCost { get; } = options.TracingCostPipe is null ? null
        : new TracingCostBlocks(options.TracingCostRuns, InjectedShares(options), options.TracingCostSham, progress);

    /// <summary>--inject-traced-work: each serializer's share, the i-th of the list for the i-th serializer, cycling.</summary>
    private static Dictionary<string, double> InjectedShares(BenchmarkOptions options)
    {
        var serializers = options.Serializers.Count == 0 ? SerializerCatalog.All : options.Serializers;
        var shares = options.InjectTracedWork;
        return shares.Count == 0 ? [] : serializers.Select((s, i) => (s.Name, Share: shares[i % shares.Count])).ToDictionary(p => p.Name, p => p.Share);
    }

    public override void Run(CancellationToken cancel)
    {
        using var heap = _heap = options.Heap is { } plan ? new HeapSnapshotPoint(plan, DataFactory.TypeOf(options.Data).Name, progress) : null;
        if (heap is not null) HeapSnapshots = [];
        // Listening from the start: the runtime's call-counting delay is on after start-up, and its end is an event.
        using var tiering = TieringWatch.Start(options.Warmup.Rule.Tiering);
        _cases = new CaseRunner(options.Warmup, options.Runs, tiering);
        Warmups = [];
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: options.Threads > 1, options.FailAfterRuns);
        var dataType = DataFactory.TypeOf(options.Data);
        var dataName = dataType.Name;
        var serializers = options.Serializers.Count == 0 ? SerializerCatalog.All : options.Serializers;
        var doSerialize = options.Test is TestMode.Combined or TestMode.Serialize;
        var doDeserialize = options.Test is TestMode.Combined or TestMode.Deserialize;
        var total = serializers.Count * options.Counts.Count;
        var done = 0;

        foreach (var serializer in serializers)
        {
            var reason = serializer.UnsupportedReason ?? serializer.UnsupportedDataReason(dataType) ?? options.Scenario?.UnsupportedReason(serializer);
            if (reason is not null)
            {
                Unsupported.Add(new UnsupportedSerializer(serializer.Name, reason));
                done += options.Counts.Count;
                continue;
            }
            var resultsBefore = Results.Count;
            for (var i = 0; i < options.Counts.Count; i++)
            {
                var count = options.Counts[i];
                cancel.ThrowIfCancellationRequested();
                progress?.Report($"[{++done}/{total}] {serializer.Name} N={count}");
                try
                {
                    RunOne(serializer, scope, dataName, count, doSerialize, doDeserialize, cancel);
                }
                catch (Exception ex) when (NotRunnable.Reason(ex, anyMeasured: Results.Count > resultsBefore) is { } why)
                {
                    // A configuration without dynamic code is a legitimate thing to measure; a serializer that cannot
                    // work in it is reported once, like BinaryFormatter on .NET 9+ (its other counts would fail alike).
                    Unsupported.Add(new UnsupportedSerializer(serializer.Name, why));
                    progress?.Report($"  not runnable here: {why}");
                    done += options.Counts.Count - i - 1;
                    break;
                }
                catch (Exception ex) when (ex is not OperationCanceledException)
                {
                    // One failing serializer must not cost the user every other result.
                    Errors.Add($"{serializer.Name} N={count}: {ex.GetType().Name}: {ex.Message}");
                    progress?.Report($"  failed: {ex.GetType().Name}: {ex.Message}");
                }
            }
        }
        if (TracingCost is { } blocks)
        {
            try
            {
                (TracingCostCases, TracingCostProblem) = blocks.Run(options.TracingCostPipe!, cancel, tiering is null ? null : () => tiering.Read().Phase != TieringPhase.Idle);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                TracingCostProblem = $"{ex.GetType().Name}: {ex.Message}";
            }
            if (TracingCostProblem is { } problem) progress?.Report($"tracing cost: {problem}");
        }
    }

    private void RunOne(Serializer serializer, RunScope scope, string dataName, int count, bool doSerialize, bool doDeserialize, CancellationToken cancel)
    {
        var snapshot = _heap?.Wants(serializer, count) == true;
        long originalBytes = 0;
        var data = snapshot
            ? HeapSnapshotPoint.CreateMeasured(() => DataFactory.Create(options.Data, count, options.PayloadBytes), out originalBytes)
            : DataFactory.Create(options.Data, count, options.PayloadBytes);
        var (cases, crew, bytes) = BuildCases(serializer, scope, dataName, count, doSerialize, doDeserialize, data, verify: options.ShouldVerify(count), keep: true);
        using var crewScope = crew;

        // Serialize and deserialize of this N warm up together (CaseRunner), then each is measured.
        var outcomes = _cases!.RunGroup(cases, cancel);
        foreach (var w in outcomes.Select(o => o.Warmup))
        {
            Warmups!.Add(w);
            progress?.Report($"  {w.Operation}: {w.WarmupRuns} warm-up run(s), {(w.SteadyState ? "steady" : "NOT steady")}, {w.Operations} op(s) per run; {w.Reason}");
        }
        // Run again later with tracing off and on (--tracing-cost), from data built afresh: holding this N's data
        // until then would change the heap every later case runs in.
        if (TracingCost is { } blocks)
        {
            var operations = outcomes.ToDictionary(o => o.Warmup.Operation, o => o.Warmup.Operations);
            blocks.Add(new TracingCostBlocks.Group($"{serializer.Name} N={count}", () =>
            {
                var again = BuildCases(serializer, scope, dataName, count, doSerialize, doDeserialize,
                    DataFactory.Create(options.Data, count, options.PayloadBytes), verify: false, keep: false);
                return (again.Cases.Select(c => (c, operations[c.Key.Operation])).ToList(), again.Crew);
            }));
        }

        // After the measured runs, so the forced GCs and the wait for the dump never fall inside one.
        if (snapshot) HeapSnapshots!.Add(_heap!.Take(serializer, dataName, count, outcomes[^1].Runs.Count, data, originalBytes, bytes, cancel));
    }

    /// <summary>
    /// The cases of one serializer and N over the given data: serialize into one reused stream, deserialize from its
    /// bytes (rewritten by --scenario). <paramref name="keep"/>: each run is kept as a result (not for the tracing-cost blocks).
    /// </summary>
    private (List<CaseSpec> Cases, WorkerCrew? Crew, byte[] Bytes) BuildCases(Serializer serializer, RunScope scope, string dataName, int count,
        bool doSerialize, bool doDeserialize, object data, bool verify, bool keep)
    {
        var dataType = data.GetType();
        var buffer = new MemoryStream();
        serializer.Serialize(data, buffer); // also produces the input for deserialize runs
        var bytes = buffer.ToArray();
        if (options.Scenario is { } scenario) bytes = scenario.Rewrite(bytes); // verified below, like any input
        string? verification = null;
        if (verify)
        {
            var back = serializer.Deserialize(dataType, new MemoryStream(bytes, writable: false));
            verification = RoundTripVerifier.Verify(data, back).Summary;
        }

        var cases = new List<CaseSpec>(2);
        if (doSerialize)
        {
            // One reused output stream, emptied before each run outside the window and between the run's operations
            // inside it (two field stores, as BenchmarkDotNet does): the window holds the calls and nothing else of note.
            // The harness lambdas are fully optimized from the first run (AggressiveOptimization): they run once per
            // run, and their tier-ups would be JIT activity in the window that is not the serializer's.
            cases.Add(Case(new CaseKey(serializer.Name, "serialize", dataName, count), [MethodImpl(HarnessCode.Optimized)] (ctx) =>
            {
                buffer.Position = 0;
                buffer.SetLength(0);
                return scope.Measure(ctx, [MethodImpl(HarnessCode.Optimized)] () =>
                {
                    for (var op = 0; op < ctx.Operations; op++)
                    {
                        buffer.Position = 0;
                        buffer.SetLength(0);
                        SerializeRun(serializer, data, buffer);
                    }
                });
            }, serializer, () => buffer.Length, verification, threads: 1, keep));
        }

        var crew = doDeserialize && options.Threads > 1 ? new WorkerCrew(options.Threads, "Deserialize worker") : null;
        if (doDeserialize)
        {
            cases.Add(Case(new CaseKey(serializer.Name, "deserialize", dataName, count), [MethodImpl(HarnessCode.Optimized)] (ctx) =>
            {
                if (crew is not null) return MeasureConcurrent(scope, crew, serializer, dataType, bytes, ctx);
                // A new stream per run (outside the window), rewound between the run's operations (a field store).
                var input = new MemoryStream(bytes, writable: false);
                object? result = null;
                var m = scope.Measure(ctx, [MethodImpl(HarnessCode.Optimized)] () =>
                {
                    for (var op = 0; op < ctx.Operations; op++)
                    {
                        input.Position = 0;
                        result = DeserializeRun(serializer, dataType, input);
                    }
                });
                GC.KeepAlive(result);
                return m;
            }, serializer, () => bytes.Length, verification, options.Threads, keep));
        }
        return (cases, crew, bytes);
    }

    /// <summary>A case whose every run is kept as a result the moment it completes.</summary>
    private CaseSpec Case(CaseKey key, Func<RunContext, RunMeasurement> measure, Serializer serializer, Func<long> size, string? verification, int threads, bool keep) =>
        new(key, measure, keep ? (ctx, m) => Results.Add(ToResult(serializer, ctx, m, size(), verification, threads)) : null);

    private static RunMeasurement MeasureConcurrent(RunScope scope, WorkerCrew crew, Serializer serializer, Type dataType, byte[] bytes, RunContext run)
    {
        // The crew's threads are parked before the window opens so neither thread start-up nor input setup is measured.
        var inputs = Enumerable.Range(0, crew.Count).Select(_ => new MemoryStream(bytes, writable: false)).ToArray();
        Action<int> work = [MethodImpl(HarnessCode.Optimized)] (i) =>
        {
            for (var op = 0; op < run.Operations; op++)
            {
                inputs[i].Position = 0;
                GC.KeepAlive(DeserializeRun(serializer, dataType, inputs[i]));
            }
        };
        return scope.Measure(run, () => crew.Run(work), crew);
    }

    // The measured calls: NoInlining so the runner frame is stable; the serializer's own frames sit below it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SerializeRun(Serializer serializer, object data, Stream output)
    {
        serializer.Serialize(data, output);
        InjectedWork.AfterOperation();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static object DeserializeRun(Serializer serializer, Type type, Stream input)
    {
        var result = serializer.Deserialize(type, input);
        InjectedWork.AfterOperation();
        return result;
    }

    // Once per run, warm-up runs included: compiled optimized at once, so its own tier-up is not JIT the warm-up waits out.
    [MethodImpl(HarnessCode.Optimized)]
    private static RunResult ToResult(Serializer s, RunContext run, RunMeasurement m, long size, string? verification, int threads) => new()
    {
        Serializer = s.Name,
        SerializerVersion = s.Version,
        Format = s.Format,
        Operation = run.Operation,
        Data = run.Data,
        Objects = run.Objects,
        Run = run.Run,
        Warmup = run.Warmup,
        Operations = run.Operations,
        Threads = threads,
        DurationMs = m.DurationMs,
        OuterDurationMs = m.OuterDurationMs,
        SizeBytes = size,
        GcCount = m.Gcs,
        GcPauseMs = m.GcPauseMs,
        AllocatedBytes = m.AllocatedBytes,
        CpuMs = m.CpuMs,
        ThreadsCpuMs = m.ThreadsCpuMs,
        ProcessCpuMs = m.ProcessCpuMs,
        CompiledMethods = m.Jit?.CompiledMethods,
        CompilationMs = m.Jit?.CompilationTime.TotalMilliseconds,
        ThreadCompilationMs = m.Jit?.ThreadCompilationTime.TotalMilliseconds,
        Exceptions = m.Exceptions,
        WorkerThreadId = m.WorkerThreadId,
        MarkerThreadId = m.MarkerThreadId,
        Verification = verification,
    };
}
