using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.RunMarkers;

/// <summary>
/// The run EventSource moved from the benchmark into the run markers library; traces recorded before the move must
/// still analyze, and the analyzer reads a user's app exactly as the benchmark. So the provider is pinned byte for
/// byte: the manifest EventSource generates (provider name and GUID, event ids, versions, levels, opcodes, payload
/// names, types and order) equals the one the benchmark's own RunEventSource generated before the move
/// (RunEventSource.v1.manifest.xml, generated from that build), and every constant agrees with Common.RunEvents.
/// Since then one change, by EventSource's rule: RunEnd version 1 appended StartTimestamp and StopTimestamp (the
/// Stopwatch's reads, issue 22), pinned in RunEventSource.v2.manifest.xml; everything else is v1's, line for line.
/// Then one more: RunThread (id 5, issue 42), a thread working for the run besides the worker (the --threads crew),
/// pinned in RunEventSource.v3.manifest.xml: only added lines, v2's all kept. Then RunStop's Exceptions (version 2 of
/// RunStart and RunStop: the run's first-chance exceptions, counted in-process), pinned in RunEventSource.v4.manifest.xml.
/// </summary>
public sealed class RunEventSourceContractTests
{
    [Fact]
    public void The_manifest_is_the_benchmarks_from_before_the_move_byte_for_byte_but_appended_fields_and_RunThread()
    {
        string Read(string name) => File.ReadAllText(Path.Combine(Repo.Root, "Tests", "RunMarkers", name)).ReplaceLineEndings("\n");
        var now = EventSource.GenerateManifest(typeof(RunEventSource), null)!.ReplaceLineEndings("\n");
        Assert.Equal(Read("RunEventSource.v4.manifest.xml"), now);
        // v3 to v4: RunStop's Exceptions appended, RunStart and RunStop at version 2; nothing else changed.
        var v3 = Read("RunEventSource.v3.manifest.xml").Split('\n');
        var v4 = now.Split('\n');
        Assert.All(v3.Except(v4), line => Assert.Matches("symbol=\"RunSt(art|op)\".*version|version=\"1\".*symbol=\"RunSt(art|op)\"", line));
        Assert.All(v4.Except(v3), line => Assert.Matches("version=\"2\".*symbol=\"RunSt(art|op)\"|name=\"Exceptions\"", line));
        // v2 to v3: RunThread's task, event, template and string added; nothing of v2 changed or gone.
        var v2 = Read("RunEventSource.v2.manifest.xml").Split('\n');
        Assert.Empty(v2.Except(v3));
        Assert.All(v3.Except(v2), line => Assert.Matches("RunThread|ThreadId|</template>", line));
        // v1 to v2: only RunEnd's line and its new template.
        var v1 = Read("RunEventSource.v1.manifest.xml").Split('\n');
        Assert.Equal(["  <event value=\"4\" version=\"0\" level=\"win:Informational\" symbol=\"RunEnd\" task=\"RunEnd\"/>"], v1.Except(v2));
        Assert.All(v2.Except(v1), line => Assert.Matches("RunEnd|StartTimestamp|StopTimestamp|</template>", line));
    }

    [Fact]
    public void Its_name_guid_ids_and_version_are_the_analyzers_contract()
    {
        Assert.Equal(RunEvents.ProviderName, RunEventSource.ProviderName);
        Assert.Equal(RunEvents.ProviderName, MarkedRuns.ProviderName);
        Assert.Equal(RunEvents.ProviderName, EventSource.GetName(typeof(RunEventSource)));
        Assert.Equal(RunEvents.ProviderGuid, EventSource.GetGuid(typeof(RunEventSource)));
        Assert.Equal(RunEvents.ProviderGuid, RunEventSource.Log.Guid);
        Assert.Equal(
            (RunEvents.RunStartId, RunEvents.RunStopId, RunEvents.RunBeginId, RunEvents.RunEndId, RunEvents.RunThreadId, RunEvents.RunStartStopVersion, RunEvents.RunEndVersion),
            (RunEventSource.RunStartId, RunEventSource.RunStopId, RunEventSource.RunBeginId, RunEventSource.RunEndId, RunEventSource.RunThreadId, RunEventSource.RunStartStopVersion, RunEventSource.RunEndVersion));
    }

    [Fact]
    public void The_marker_waits_in_the_methods_the_analyzer_and_the_stack_tags_look_for()
    {
        Assert.Equal(RunEvents.MarkerMethodByOperation.OrderBy(p => p.Key, StringComparer.Ordinal),
            MarkerThread.WaitMethodByOperation.OrderBy(p => p.Key, StringComparer.Ordinal));
        Assert.Equal(RunEvents.MarkerMethods, [.. MarkerThread.WaitMethodByOperation.Values, RunEvents.OtherMarkerMethod]);
        Assert.Equal(nameof(MarkerThread), RunEvents.MarkerClass);
        foreach (var method in RunEvents.MarkerMethods)
        {
            var m = typeof(MarkerThread).GetMethod(method, System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance);
            Assert.True(m is not null && m.MethodImplementationFlags.HasFlag(System.Reflection.MethodImplAttributes.NoInlining), method);
        }
    }

    [Theory]
    [InlineData("serialize"), InlineData("deserialize"), InlineData("firstcall")]
    public void A_marker_method_names_its_operation(string operation) =>
        Assert.Equal(operation, RunEvents.OperationOfMarkerMethod(RunEvents.MarkerMethodByOperation[operation]));

    [Fact]
    public void Other_and_unknown_marker_methods_are_other()
    {
        Assert.Equal("other", RunEvents.OperationOfMarkerMethod(RunEvents.OtherMarkerMethod));
        Assert.Equal("other", RunEvents.OperationOfMarkerMethod(null));
        Assert.Equal("other", RunEvents.OperationOfMarkerMethod("Main"));
    }
}
