using System.Reflection;
using EtwSerializerProfiler.Analyzer.Processing;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing;

/// <summary>
/// The pass is made of stages that own their state (<see cref="IPassStage"/>, as TraceEvent's computers are): the
/// pass itself keeps only what every stage shares. A field added to it, rather than to a stage, fails here.
/// </summary>
public sealed class PassStateTests
{
    private const int MostFields = 8;

    [Fact]
    public void The_pass_keeps_only_what_every_stage_shares()
    {
        var state = typeof(TraceAnalyzer).GetNestedType("PassState", BindingFlags.NonPublic);
        Assert.NotNull(state);
        // Every instance field, the compiler's too: a captured constructor parameter or an auto-property's backing field.
        var fields = state.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly);
        Assert.True(fields.Length <= MostFields,
            $"PassState has {fields.Length} fields (at most {MostFields}): {string.Join(", ", fields.Select(f => f.Name))}; give the new state to a stage (Analyzer/Processing/Stages/)");
        Assert.True(typeof(IPass).IsAssignableFrom(state), "the pass is what its stages share");
    }
}
