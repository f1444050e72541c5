using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Perf.BdnComparison;

// The serializer benchmark checked against BenchmarkDotNet: `run` measures the benchmark's window with BenchmarkDotNet,
// `table` puts both sides next to each other. scripts/measure/bdn-compare.sh drives both; docs/benchmark.md explains.
try
{
    switch (args.FirstOrDefault())
    {
        case "run":
            var options = RunOptions.Parse(args[1..]);
            var results = BdnRun.Run(options, Console.Out);
            results.Save(options.JsonPath);
            foreach (var e in results.Errors) Console.Error.WriteLine(e);
            return results.Cases.Count > 0 ? ExitCodes.Ok : ExitCodes.Failed;
        case "table":
            return TableCommand.Run(args[1..], Console.Out);
        case null or "--help" or "-h" or "help":
            Console.WriteLine(RunOptions.Usage);
            return args.Length == 0 ? ExitCodes.Usage : ExitCodes.Ok;
        default:
            throw new UsageException($"unknown command '{args[0]}' (run or table; --help)");
    }
}
catch (UsageException ex)
{
    Console.Error.WriteLine($"error: {ex.Message}");
    return ExitCodes.Usage;
}
catch (BadInputException ex)
{
    Console.Error.WriteLine($"error: {ex.Message}");
    return ExitCodes.BadInput;
}
