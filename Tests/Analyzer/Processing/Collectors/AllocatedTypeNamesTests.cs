using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

/// <summary>The allocated type's name read in place from each AllocationTick of a real recording, against TraceEvent's own reading.</summary>
public sealed class AllocatedTypeNamesTests
{
    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_tick_names_the_type_as_TraceEvent_does_and_a_name_is_made_once(string recording)
    {
        var dir = Repo.NewTempDir("typenames");
        try
        {
            using var input = TraceInput.Open(Repo.CopyGoldenRecording(recording, dir));
            var names = new AllocatedTypeNames();
            var seen = new Dictionary<string, string>(StringComparer.Ordinal);
            var (ticks, wrong) = (0, new List<string>());
            using (var source = new EventPipeEventSource(input.TracePath))
            {
                source.Clr.GCAllocationTick += e =>
                {
                    ticks++;
                    var name = names.Of(e);
                    if (name != e.TypeName) wrong.Add($"{name} != {e.TypeName}");
                    if (seen.TryGetValue(name, out var first) && !ReferenceEquals(first, name)) wrong.Add($"{name} made twice");
                    seen.TryAdd(name, name);
                };
                source.Process();
            }
            Assert.True(ticks > 100, $"only {ticks} allocation ticks");
            Assert.True(seen.Count > 5 && seen.Count < ticks, $"{seen.Count} names over {ticks} ticks");
            Assert.Empty(wrong);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
