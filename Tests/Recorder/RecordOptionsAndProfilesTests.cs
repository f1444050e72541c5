using EtwSerializerProfiler.Tests.Support;
using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Cli.Commands;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Recorder.EventPipe;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Tests.Recorder;

public sealed class RecordOptionsAndProfilesTests
{
    [Fact]
    public void Recorder_options_are_split_from_benchmark_options_in_order()
    {
        var o = RecordVerb.Parse(["--out", "x", "--n", "1000,20000", "--profile=gc", "--runs", "3", "--analyze", "--env", "A=1", "--env=B=2=3"]);
        Assert.Equal("x", o.Out);
        Assert.Equal("gc", o.Profile);
        Assert.True(o.Analyze);
        Assert.Equal(["--n", "1000,20000", "--runs", "3"], o.BenchmarkArgs);
        Assert.Equal("1", o.Environment["A"]);
        Assert.Equal("2=3", o.Environment["B"]);
        Assert.Empty(o.Command);
        Assert.Equal(Backend.EventPipe, o.Backend);
    }

    [Fact]
    public void What_the_recorder_acts_on_is_the_benchmarks_own_parse_of_its_arguments()
    {
        var b = RecordVerb.Parse(["--test", "FirstCall", "--serializers", "system.text.json", "--json=x.json"]).Benchmark;
        Assert.True(b.FirstCall);
        Assert.Equal(["System.Text.Json"], b.Serializers);
        Assert.Equal(["--json"], b.RecorderOwned);
        Assert.Same(BenchmarkRequest.None, RecordVerb.Parse(["--", "dotnet", "app.dll", "--test", "firstcall"]).Benchmark);
        Assert.False(RecordVerb.Parse(["--n", "10"]).Benchmark.FirstCall);
        Assert.Empty(RecordVerb.Parse(["--n", "10"]).Benchmark.RecorderOwned);
    }

    [Fact]
    public void The_recorders_choices_take_each_of_their_values()
    {
        Assert.True(RecordVerb.Parse(["--eventpipe-samples", "on"]).EventPipeSamples);
        Assert.False(RecordVerb.Parse(["--eventpipe-samples=off"]).EventPipeSamples);
        Assert.Null(RecordVerb.Parse(["--eventpipe-samples", "auto", "--n", "10"]).EventPipeSamples);
        Assert.Null(RecordVerb.Parse(["--n", "10"]).EventPipeSamples);
        Assert.Equal(KernelMode.Off, RecordVerb.Parse(["--kernel", "OFF"]).Kernel);
        Assert.Equal(KernelMode.Auto, RecordVerb.Parse([]).Kernel);
        Assert.Equal(Backend.Etw, RecordVerb.Parse(["--backend", "etw"]).Backend);
        Assert.Contains("--eventpipe-samples needs a value", Assert.Throws<UsageException>(() => RecordVerb.Parse(["--eventpipe-samples"])).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_cpu_sample_interval_takes_a_number_and_needs_the_kernel_session()
    {
        Assert.Equal(2.5, RecordVerb.Parse(["--cpu-sample-ms", "2.5"]).CpuSampleMs);
        Assert.Null(RecordVerb.Parse(["--n", "10"]).CpuSampleMs);
        Assert.Contains("--cpu-sample-ms expects a number from 0.1 to 1000, got 'fast'",
            Assert.Throws<UsageException>(() => RecordVerb.Parse(["--cpu-sample-ms", "fast"])).Message, StringComparison.Ordinal);
        Assert.Contains("expects a number", Assert.Throws<UsageException>(() => RecordVerb.Parse(["--cpu-sample-ms", "0"])).Message, StringComparison.Ordinal);
        Assert.Contains("with --kernel off EventPipe's sampler runs every 1 ms",
            Assert.Throws<UsageException>(() => RecordVerb.Parse(["--cpu-sample-ms", "2", "--kernel", "off"])).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Everything_after_double_dash_is_the_command()
    {
        var o = RecordVerb.Parse(["--profile", "startup", "--", "dotnet", "app.dll", "--out", "ignored"]);
        Assert.Equal(["dotnet", "app.dll", "--out", "ignored"], o.Command);
        Assert.Null(o.Out);
        Assert.Throws<UsageException>(() => RecordVerb.Parse(["--n", "1", "--", "dotnet", "x.dll"]));
        Assert.Throws<UsageException>(() => RecordVerb.Parse(["--backend", "perf"]));
    }

    [PlatformFact("NotWindows", "the Windows path is covered by the ETW tests")]
    public async Task Etw_backend_off_windows_is_a_clear_error()
    {
        var options = RecordVerb.Parse(["--backend", "etw", "--out", Path.Combine(Path.GetTempPath(), "never-" + Guid.NewGuid())]);
        var ex = await Assert.ThrowsAsync<UsageException>(() => EtwSerializerProfiler.Recorder.Launch.RecordCommand.RunAsync(options, TextWriter.Null, new Progress<string>(), default));
        Assert.Contains("needs Windows", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Shipped_profiles_load_and_render_the_documented_eventpipe_providers()
    {
        var profiles = ProfileCatalog.Load();
        Assert.Equal(["default", "gc", "startup"], profiles.Select(p => p.Name));
        Assert.All(profiles, p => Assert.False(string.IsNullOrWhiteSpace(p.Description)));

        var byName = EventPipeProviders.For(ProfileCatalog.Get("default")).ToDictionary(p => p.Name);
        var clr = byName["Microsoft-Windows-DotNETRuntime"];
        // Exception (0x8000) is left to the stackless sessions (ExceptionSessions): every throw and its end without a stack.
        Assert.Equal(0x1 | 0x8 | 0x10 | 0x4000 | 0x8000000000 | 0x40000000000, clr.Keywords); // 0x8000000000: TypeDiagnostic (type loads)
        var stackless = Assert.Single(EventPipeProviders.Stackless(ProfileCatalog.Get("default")));
        Assert.Equal((KeywordNames.ClrProvider, 0x8000L, EventLevel.Informational), (stackless.Name, stackless.Keywords, stackless.EventLevel));
        Assert.Empty(EventPipeProviders.Stackless(ProfileCatalog.Get("gc")));
        // Above 8 MB/s (about 14,000 throws a second) the stackless session stops: runs count their throws in-process.
        Assert.Equal(8.0 * 1048576, EventPipeProviders.StacklessMaxBytesPerSecond(ProfileCatalog.Get("default")));
        Assert.Null(EventPipeProviders.StacklessMaxBytesPerSecond(ProfileCatalog.Get("gc")));
        Assert.Equal(EventLevel.Verbose, clr.EventLevel); // allocation ticks and WaitHandle events are Verbose
        Assert.True(byName.ContainsKey(RunEvents.ProviderName));
        Assert.True(byName.ContainsKey("Microsoft-DotNETCore-SampleProfiler"));

        var gc = EventPipeProviders.For(ProfileCatalog.Get("gc")).ToDictionary(p => p.Name);
        Assert.False(gc.ContainsKey("Microsoft-DotNETCore-SampleProfiler"));
        Assert.Equal(0x1 | 0x40000000000, gc["Microsoft-Windows-DotNETRuntime"].Keywords);

        var startup = EventPipeProviders.For(ProfileCatalog.Get("STARTUP")).ToDictionary(p => p.Name);
        Assert.NotEqual(0, startup["Microsoft-Windows-DotNETRuntime"].Keywords & 0x80000); // Type
    }

    [Fact]
    public void A_stackless_keyword_must_be_one_of_the_providers_keywords()
    {
        var file = Path.Combine(Path.GetTempPath(), $"esp-profiles-{Guid.NewGuid():N}.json");
        File.WriteAllText(file, """{ "profiles": [ { "name": "p", "description": "d", "providers": [ { "name": "Microsoft-Windows-DotNETRuntime", "keywords": ["GC"], "stacklessKeywords": ["Exception"] } ] } ] }""");
        try
        {
            var ex = Assert.Throws<BadInputException>(() => ProfileCatalog.Load(file));
            Assert.Contains("stackless keyword 'Exception'", ex.Message, StringComparison.Ordinal);
        }
        finally { File.Delete(file); }
    }

    [Fact]
    public void With_the_kernel_sampling_the_cpu_only_lock_waits_keep_their_stacks_in_a_session_of_their_own()
    {
        var profile = ProfileCatalog.Get("default");
        // The kernel session samples the CPU: no EventPipe sampler, so the main session needs no stack.
        var main = EventPipeProviders.For(profile, kernelSamplesCpu: true);
        var side = Assert.Single(EventPipeProviders.StackSide(profile, main));
        Assert.Equal((KeywordNames.ClrProvider, 0x4000L, EventLevel.Verbose), (side.Name, side.Keywords, side.EventLevel)); // Contention
        var rest = EventPipeProviders.Without(main, [side]).ToDictionary(p => p.Name);
        Assert.Equal(0x1 | 0x8 | 0x10 | 0x8000000000 | 0x40000000000, rest[KeywordNames.ClrProvider].Keywords);
        Assert.Equal(main.Count, rest.Count);
        // EventPipe's sampler needs a stack on each of its events: then every event keeps one, in the main session.
        Assert.Empty(EventPipeProviders.StackSide(profile, EventPipeProviders.For(profile, kernelSamplesCpu: false)));
        Assert.Empty(EventPipeProviders.StackSide(profile, EventPipeProviders.For(profile, kernelSamplesCpu: true, sampler: true)));
        Assert.True(EventPipeProviders.MainWithoutStacks(profile, main));
        Assert.False(EventPipeProviders.MainWithoutStacks(profile, EventPipeProviders.For(profile, kernelSamplesCpu: false)));
        // "stackKeywords": [] (gc): no stacks at all, and no session for them; absent (startup): a stack on every event.
        var gc = ProfileCatalog.Get("gc");
        Assert.True(EventPipeProviders.MainWithoutStacks(gc, EventPipeProviders.For(gc, kernelSamplesCpu: false)));
        Assert.Empty(EventPipeProviders.StackSide(gc, EventPipeProviders.For(gc, kernelSamplesCpu: false)));
        var startup = ProfileCatalog.Get("startup");
        Assert.False(EventPipeProviders.MainWithoutStacks(startup, EventPipeProviders.For(startup, kernelSamplesCpu: true)));
    }

    [Theory]
    [InlineData("""["GC"]""", """["Contention"]""", "[]", "stack keyword 'Contention' is not one of its keywords")]
    [InlineData("""["GC", "Exception"]""", """["Exception"]""", """["Exception"]""", "both a stack keyword and a stackless one")]
    public void A_stack_keyword_must_be_one_of_the_providers_keywords_and_not_stackless(string keywords, string stackKeywords, string stackless, string said)
    {
        var file = Path.Combine(Path.GetTempPath(), $"esp-profiles-{Guid.NewGuid():N}.json");
        File.WriteAllText(file, $$"""{ "profiles": [ { "name": "p", "description": "d", "providers": [ { "name": "Microsoft-Windows-DotNETRuntime", "keywords": {{keywords}}, "stackKeywords": {{stackKeywords}}, "stacklessKeywords": {{stackless}} } ] } ] }""");
        try
        {
            var ex = Assert.Throws<BadInputException>(() => ProfileCatalog.Load(file));
            Assert.Contains(said, ex.Message, StringComparison.Ordinal);
        }
        finally { File.Delete(file); }
    }

    [Fact]
    public void Unknown_profiles_and_keywords_are_errors_that_name_them()
    {
        var ex = Assert.Throws<UsageException>(() => ProfileCatalog.Get("fast"));
        Assert.Contains("default, gc, startup", ex.Message, StringComparison.Ordinal);
        var kw = Assert.Throws<UsageException>(() => KeywordNames.Resolve(KeywordNames.ClrProvider, ["GC", "Garbage"]));
        Assert.Contains("'Garbage'", kw.Message, StringComparison.Ordinal);
        Assert.Equal(0x4001, KeywordNames.Resolve(KeywordNames.ClrProvider, ["gc", "0x4000"]));
    }

    [Fact]
    public void Malformed_profile_file_names_the_file_and_line()
    {
        var path = Path.Combine(Path.GetTempPath(), $"profiles-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, "{\n  \"profiles\": [\n    { \"name\": \"x\", \n  ]\n}\n");
        var ex = Assert.Throws<BadInputException>(() => ProfileCatalog.Load(path));
        Assert.StartsWith(path + "(", ex.Message, StringComparison.Ordinal);
        File.Delete(path);
    }

    [Fact]
    public void A_profile_that_leaves_fields_out_gets_their_documented_defaults()
    {
        // Read through generated JSON metadata (for the native esp), which assigns every init-only property: left-out
        // fields must keep their defaults, not read null or level 0 (LogAlways).
        var path = Path.Combine(Path.GetTempPath(), $"profiles-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, """{ "profiles": [ { "name": "x", "description": "d", "providers": [ { "name": "P" } ], "kernel": {} } ] }""");
        try
        {
            var profile = Assert.Single(ProfileCatalog.Load(path));
            var provider = Assert.Single(profile.Providers);
            Assert.Equal(EventLevel.Informational, provider.Level);
            Assert.Empty(provider.Keywords);
            Assert.Empty(profile.Kernel!.Keywords);
            Assert.Empty(profile.Kernel.Stacks);
        }
        finally { File.Delete(path); }
    }

    [Fact]
    public async Task Profiles_file_option_reads_the_profile_from_a_scratch_file()
    {
        // How a part of the default profile is measured: a scratch file with the default minus that part.
        var path = Path.Combine(Path.GetTempPath(), $"profiles-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, """{ "profiles": [ { "name": "no-exceptions", "description": "d", "cpuSamplingMs": 1, "providers": [ { "name": "Microsoft-Windows-DotNETRuntime", "keywords": ["GC"], "level": "Verbose" } ] } ] }""");
        try
        {
            var options = RecordVerb.Parse(["--profiles", path, "--profile", "no-exceptions", "--n", "10"]);
            Assert.Equal(path, options.ProfilesFile);
            var listing = new StringWriter();
            await RecordCommand.RunAsync(RecordVerb.Parse(["--profiles", path, "--list-profiles"]), listing, new Progress<string>(), default);
            Assert.Contains("no-exceptions", listing.ToString(), StringComparison.Ordinal);
            Assert.DoesNotContain("startup", listing.ToString(), StringComparison.Ordinal);
            // The file's profiles replace the tool's: "default" is not in it, and the error names what is.
            var missing = RecordVerb.Parse(["--profiles", path, "--out", Path.Combine(Path.GetTempPath(), "never-" + Guid.NewGuid())]);
            var ex = await Assert.ThrowsAsync<UsageException>(() => RecordCommand.RunAsync(missing, TextWriter.Null, new Progress<string>(), default));
            Assert.Contains("unknown profile 'default'; available: no-exceptions", ex.Message, StringComparison.Ordinal);
            Assert.Null(RecordVerb.Parse(["--n", "10"]).ProfilesFile);
        }
        finally { File.Delete(path); }
    }

    [Fact]
    public void The_default_profiles_perf_stacks_are_on_cpu_samples_only()
    {
        var kernel = ProfileCatalog.Get("default").Kernel!;
        Assert.Equal(["Profile"], kernel.PerfStacks);
        // A profile without perfStacks takes its stack list for perf too.
        Assert.Null(ProfileCatalog.Get("startup").Kernel!.PerfStacks);
        Assert.Equal([true, true], PerfEventPlan.For(ProfileCatalog.Get("startup")).Select(e => e.Stacks));
    }

    [Fact]
    public void Default_trace_folders_are_unique_even_within_one_second()
    {
        var root = Path.Combine(Path.GetTempPath(), $"traces-{Guid.NewGuid():N}");
        var folders = Enumerable.Range(0, 5).Select(_ => TraceFolder.CreateDefault(root).Path).ToList();
        Assert.Equal(5, folders.Distinct().Count());
        Directory.Delete(root, recursive: true);
    }
}
