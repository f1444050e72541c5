namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// The fast run (`scripts/test-fast.sh`) sets ESP_TEST_FAST=1 and filters out <see cref="EndToEndAttribute"/>
/// classes. The helpers that record or start processes call <see cref="RefuseSlowWork"/>, so a test that records
/// without the mark fails there with the fix in its message, in the fast run and in the whole suite.
/// </summary>
public static class FastRun
{
    public const string Variable = "ESP_TEST_FAST";

    public static bool Active => Environment.GetEnvironmentVariable(Variable) == "1";

    public static void RefuseSlowWork(string what)
    {
        if (Active || UnmarkedTestClass() is not null)
            throw new InvalidOperationException(
                $"{what} in {(Active ? $"the fast run ({Variable}=1)" : UnmarkedTestClass())}: mark the test class [EndToEnd] (Tests/Support/EndToEndAttribute.cs)");
    }

    /// <summary>
    /// In the whole suite too: the test class on the stack (the class of a [Fact] or [Theory] method, or of its async
    /// state machine) when it lacks the mark. Fixtures and work after an await have none on their stack: the fast run
    /// checks those.
    /// </summary>
    private static string? UnmarkedTestClass()
    {
        foreach (var frame in new System.Diagnostics.StackTrace().GetFrames())
        {
            if (frame.GetMethod() is { } method && (method.IsDefined(typeof(EndToEndAttribute), inherit: true) || MarkedAsync(method))) return null;
            for (var type = frame.GetMethod()?.DeclaringType; type is not null; type = type.DeclaringType)
            {
                if (type.Assembly != typeof(FastRun).Assembly) break;
                if (!type.GetMethods().Any(m => m.IsDefined(typeof(FactAttribute), inherit: true))) continue;
                return type.IsDefined(typeof(EndToEndAttribute), inherit: true) ? null : type.Name;
            }
        }
        return null;
    }

    /// <summary>An async test method's state machine (&lt;Name&gt;d__N.MoveNext) whose method carries the mark.</summary>
    private static bool MarkedAsync(System.Reflection.MethodBase method) =>
        method.DeclaringType is { Name: ['<', ..] name, DeclaringType: { } outer } && name.IndexOf('>') is > 1 and var end
        && outer.GetMethods().Any(m => m.Name == name[1..end] && m.IsDefined(typeof(EndToEndAttribute), inherit: true));
}
