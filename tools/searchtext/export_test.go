package searchtext

// WaitBuilds waits for the index builds running in the background.
func (sv *Service) WaitBuilds() { sv.wg.Wait() }
