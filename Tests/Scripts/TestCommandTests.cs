using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Scripts;

/// <summary>
/// The README's two commands are the ones CI runs: the test command is copied from the README's first code block and
/// must appear verbatim as a command line of .ci/run, so CI proves what a new user types.
/// </summary>
public sealed class TestCommandTests
{
    /// <summary>The command lines (comments and continuation dropped) of the README's first bash block.</summary>
    public static IReadOnlyList<string> ReadmeCommands()
    {
        var lines = File.ReadAllLines(Path.Combine(Repo.Root, "README.md"));
        var start = Array.FindIndex(lines, l => l.Trim() == "```bash");
        Assert.True(start >= 0, "README.md has no ```bash block");
        return lines.Skip(start + 1).TakeWhile(l => l.Trim() != "```")
            .Select(l => l.Trim()).Where(l => l.Length > 0 && !l.StartsWith('#')).ToList();
    }

    [Fact]
    public void The_readme_gives_two_commands_first_record_then_test()
    {
        var commands = ReadmeCommands();
        Assert.Equal(2, commands.Count);
        Assert.Contains(" record ", commands[0] + " ", StringComparison.Ordinal);
        Assert.Equal("scripts/test.sh", commands[1]);
    }

    [Fact]
    public void Ci_runs_the_readme_test_command_verbatim()
    {
        var test = ReadmeCommands()[1];
        var ci = File.ReadAllLines(Path.Combine(Repo.Root, ".ci", "run")).Select(l => l.Trim());
        Assert.Contains(ci, l => l == test || l.StartsWith(test + " ", StringComparison.Ordinal) || l.StartsWith(test + " 2>&1", StringComparison.Ordinal));
    }

    [Fact]
    public void The_test_command_runs_its_set_up_before_the_whole_suite()
    {
        var script = File.ReadAllLines(Path.Combine(Repo.Root, "scripts", "test.sh")).Select(l => l.Trim()).ToList();
        var setup = script.FindIndex(l => l.StartsWith("scripts/test-setup.sh", StringComparison.Ordinal));
        var suite = script.FindIndex(l => l.Contains("dotnet test EtwSerializerProfiler.sln -c Release", StringComparison.Ordinal));
        Assert.True(setup >= 0 && suite > setup, "scripts/test.sh must run scripts/test-setup.sh, then the whole suite");
        Assert.Contains("exit $?", script[setup], StringComparison.Ordinal);
    }
}
