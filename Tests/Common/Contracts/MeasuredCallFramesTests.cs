using System.Reflection;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Common;

// Not Tests.Common: that namespace would hide EtwSerializerProfiler.Common from the tests that write Common.ExitCodes.
namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>The frames the analyzer looks for are methods the benchmark has, so a rename there fails here.</summary>
public sealed class MeasuredCallFramesTests
{
    [Fact]
    public void Every_measured_frame_is_a_benchmark_method()
    {
        foreach (var frame in MeasuredCallFrames.All)
        {
            var (type, method) = (frame[..frame.IndexOf('.', StringComparison.Ordinal)], frame[(frame.IndexOf('.', StringComparison.Ordinal) + 1)..].TrimEnd('('));
            var declaring = typeof(BenchmarkRunner).Assembly.GetTypes().Single(t => t.Name == type);
            Assert.True(declaring.GetMethod(method, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance) is not null, frame);
        }
    }
}
