using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Scripts;

/// <summary>A test that starts a process without the [EndToEnd] mark fails in the whole suite, not only in the fast run.</summary>
public sealed class EndToEndMarkTests
{
    [Fact]
    public void Starting_a_process_from_an_unmarked_test_class_fails_with_the_fix()
    {
        var refused = Assert.Throws<InvalidOperationException>(() => ProcessRunner.Run("true", []));
        Assert.Contains(FastRun.Active ? "in the fast run" : $"in {nameof(EndToEndMarkTests)}", refused.Message, StringComparison.Ordinal);
        Assert.Contains("mark the test class [EndToEnd]", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_async_test_is_held_to_the_mark_too()
    {
        await Task.Yield(); // the state machine's MoveNext is on the stack, not the test method
        var refused = Assert.Throws<InvalidOperationException>(() => ProcessRunner.Run("true", []));
        Assert.Contains("mark the test class [EndToEnd]", refused.Message, StringComparison.Ordinal);
    }
}
