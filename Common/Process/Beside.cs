namespace EtwSerializerProfiler.Common;

/// <summary>
/// Work split over two cores: a task started beside the caller's own work and joined after it. When the caller's
/// work fails, its exception is the one reported and the task ends on its own, its exception observed (not an
/// unobserved-task event later, from an unrelated GC).
/// </summary>
public static class Beside
{
    /// <summary>Runs <paramref name="main"/>, then waits for <paramref name="side"/> (null: nothing beside).</summary>
    public static void Join(Task? side, Action main) => Join(side, () => { main(); return 0; });

    /// <summary>Runs <paramref name="main"/>, waits for <paramref name="side"/> (null: nothing beside), and returns the main work's result.</summary>
    public static T Join<T>(Task? side, Func<T> main)
    {
        T result;
        try { result = main(); }
        catch
        {
            side?.ContinueWith(static t => t.Exception, TaskContinuationOptions.OnlyOnFaulted);
            throw;
        }
        side?.GetAwaiter().GetResult();
        return result;
    }
}
