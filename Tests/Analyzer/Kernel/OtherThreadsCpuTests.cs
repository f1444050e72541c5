using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>Thread roles from the names the runtime gives its threads (perf's comm, 15 characters), as recorded on .NET 10.</summary>
public sealed class OtherThreadsCpuTests
{
    [Theory]
    [InlineData(".NET BGC", ThreadRole.Gc)]
    [InlineData(".NET Server GC", ThreadRole.Gc)]
    [InlineData(".NET Tiered Com", ThreadRole.Jit)]
    [InlineData(".NET Finalizer", ThreadRole.Finalizer)]
    [InlineData(".NET EventPipe", ThreadRole.Tracer)]
    [InlineData("Run marker", ThreadRole.Other)]
    [InlineData(".NET Long Runni", ThreadRole.Other)]
    [InlineData(null, ThreadRole.Other)]
    public void A_named_thread_has_its_role(string? name, ThreadRole role) => Assert.Equal(role, OtherThreadsCpu.RoleOf(name));

    [Fact]
    public void A_thread_that_kept_the_process_s_name_is_the_tracer_s() => Assert.Equal(ThreadRole.Tracer, OtherThreadsCpu.RoleOf("dotnet", unnamed: true));
}
