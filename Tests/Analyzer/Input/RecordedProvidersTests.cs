using System.Diagnostics.Tracing;
using System.Text;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>What a recording enabled, from its manifest, and the three warnings an empty event family gets from it.</summary>
public sealed class RecordedProvidersTests
{
    private const string Clr = MissingEvents.ClrProviderName;
    private static string ManifestPath => Path.Combine(Repo.Root, "Tests", "Fixtures", "Manifest", "kernel-session.manifest.json");

    [Fact]
    public void A_real_manifest_says_the_default_profile_enabled_contention_exceptions_allocation_ticks_and_jit()
    {
        var recorded = RecordedProviders.From(ManifestPath, "/somewhere/trace.nettrace")!;
        Assert.True(recorded.Enabled(Clr, 0x4000, EventLevel.Informational)); // Contention
        Assert.True(recorded.Enabled(Clr, 0x8000, EventLevel.Informational)); // Exception
        Assert.True(recorded.Enabled(Clr, 0x1, EventLevel.Verbose));          // GC at Verbose: allocation ticks
        Assert.True(recorded.Enabled(Clr, 0x10, EventLevel.Verbose));         // Jit
        Assert.False(recorded.Enabled(Clr, 0x20000, EventLevel.Informational)); // GCHeapSnapshot: not in the profile
        Assert.False(recorded.Enabled("Microsoft-DotNETCore-SampleProfiler", 0x1, EventLevel.Informational)); // not in this manifest
    }

    [Fact]
    public void A_keyword_below_its_level_or_a_manifest_of_another_trace_file_is_not_taken_as_enabled()
    {
        var manifest = """{"providers":[{"name":"Microsoft-Windows-DotNETRuntime","keywords":"0xC001","level":"Informational","keywordNames":[]}],"traceFile":"trace.nettrace"}""";
        var recorded = RecordedProviders.Parse(Encoding.UTF8.GetBytes(manifest), "trace.nettrace")!;
        Assert.True(recorded.Enabled(Clr, 0x4000, EventLevel.Informational));
        Assert.False(recorded.Enabled(Clr, 0x1, EventLevel.Verbose)); // allocation ticks need Verbose
        Assert.Null(RecordedProviders.Parse(Encoding.UTF8.GetBytes(manifest), "other.nettrace"));
        Assert.Null(RecordedProviders.Parse("not json"u8, "trace.nettrace"));
        Assert.Null(RecordedProviders.From(null, "trace.nettrace"));
    }

    [Fact]
    public void Each_empty_family_is_said_to_be_enabled_and_none_happened_not_recorded_or_unknown()
    {
        var lines = MissingEvents.Lines([("lock contention", true), ("exceptions", true), ("allocation ticks", false), ("JIT timing", null)]).ToList();
        Assert.Equal(3, lines.Count);
        Assert.StartsWith("enabled, none happened: lock contention, exceptions were enabled", lines[0], StringComparison.Ordinal);
        Assert.StartsWith("not recorded: this trace has no events for allocation ticks,", lines[1], StringComparison.Ordinal);
        Assert.Contains("JIT timing; unknown whether enabled", lines[2], StringComparison.Ordinal);
        Assert.Empty(MissingEvents.Lines([]));
    }
}
