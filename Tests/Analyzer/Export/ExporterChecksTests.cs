using EtwSerializerProfiler.Analyzer.Export;

namespace EtwSerializerProfiler.Tests.Analyzer.Export;

/// <summary>A static check, in the fast run: every exporter has a well-formedness check in <see cref="ExportersTests"/>.</summary>
public sealed class ExporterChecksTests
{
    [Fact]
    public void Every_format_has_a_check() =>
        Assert.Equal(Exporters.All.Select(e => e.Name).Order(), ExportersTests.Checks.Keys.Order());
}
