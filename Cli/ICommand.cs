namespace EtwSerializerProfiler.Cli;

/// <summary>One verb of the esp tool.</summary>
public interface ICommand
{
    string Name { get; }
    string Summary { get; }
    Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel);
}
