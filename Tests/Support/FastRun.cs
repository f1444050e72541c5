namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// The fast run (`scripts/test-fast.sh`) sets ESP_TEST_FAST=1 and filters out <see cref="EndToEndAttribute"/>
/// classes. The helpers that record or start processes call <see cref="RefuseSlowWork"/>, so a test that records
/// without the mark fails there with the fix in its message, rather than making the fast run slow.
/// </summary>
public static class FastRun
{
    public const string Variable = "ESP_TEST_FAST";

    public static bool Active => Environment.GetEnvironmentVariable(Variable) == "1";

    public static void RefuseSlowWork(string what)
    {
        if (Active)
            throw new InvalidOperationException(
                $"{what} in the fast run ({Variable}=1): mark the test class [EndToEnd] (Tests/Support/EndToEndAttribute.cs)");
    }
}
